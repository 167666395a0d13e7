import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// Where the repository gets fresh articles: one request in, one decoded page out.
///
/// The real implementation is ``HTTPNewsNetwork`` (NewsAPI v2 over HTTP); ``FileNewsNetwork`` reads a saved
/// response from disk (the bundled sample, `news import`); tests inject their own. Implementations decide nothing
/// about caching: they succeed with a complete, valid page or throw.
public protocol NewsNetwork: Sendable {
  /// Fetches and decodes one response for `query`.
  ///
  /// - Returns: the articles of a complete, valid response, and the records that were skipped.
  /// - Throws: ``NewsNetworkError`` for every failure: transport, HTTP status, NewsAPI error body, invalid or
  ///   truncated JSON. A response that is not entirely valid is an error, never a partial page.
  func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage

  /// Fetches one response for `request`, conditionally when `request.validators` is not empty.
  ///
  /// The default implementation ignores the validators and calls ``fetch(_:)-(NewsQuery)``: it always answers
  /// ``NewsResponse/page(_:validators:)`` with no validators. ``HTTPNewsNetwork`` sends `If-None-Match` /
  /// `If-Modified-Since` and reports `304 Not Modified` and the server's `ETag` / `Last-Modified` (RFC 9110).
  ///
  /// - Throws: ``NewsNetworkError``, as ``fetch(_:)-(NewsQuery)`` does.
  func fetch(_ request: NewsRequest) async throws(NewsNetworkError) -> NewsResponse
}

extension NewsNetwork {
  public func fetch(_ request: NewsRequest) async throws(NewsNetworkError) -> NewsResponse {
    .page(try await fetch(request.query), validators: .none)
  }
}

/// The decoded content of one successful response.
public struct NewsPage: Sendable, Hashable {
  /// The valid articles, in response order, one per URL (when a URL repeats, the later record wins and keeps the
  /// earlier one's place).
  public var articles: [Article]
  /// Records that were dropped, and values that were set aside, each with its place and reason.
  public var issues: [RecordIssue]
  /// NewsAPI's `totalResults`: how many results the query has in all, across pages. `nil` if absent.
  public var totalResults: Int?
  /// Where the request was redirected to by an unbroken run of permanent redirects (`301`, `308`: RFC 9110
  /// §15.4.2, §15.4.9), when it was: the address a subscription should use from now on. `nil` when the page came
  /// from the URL asked for, or a temporary redirect (`302`, `303`, `307`) was on the way.
  public var movedPermanently: URL?
  /// The feed's own title as its document gives it (RSS `channel/title`, Atom `feed/title`, JSON Feed `title`), as
  /// the document writes it (white space and all); `nil` for a response that is no feed or a feed without one.
  public var feedTitle: String?

  /// A page of `articles`, in response order, with the issues of the records read (none by default) and the total the server reported.
  public init(articles: [Article], issues: [RecordIssue] = [], totalResults: Int? = nil) {
    self.articles = articles
    self.issues = issues
    self.totalResults = totalResults
  }

  /// The number of records skipped (not saved).
  package var skippedCount: Int { issues.filter(\.skipped).count }
}

/// A problem with one record of a response, and what became of it (``outcome``): the record skipped, a value set
/// aside, an earlier record replaced, or nothing lost (a note of how a value was read).
public struct RecordIssue: Sendable, Hashable, CustomStringConvertible {
  /// What became of the record or value, so that a message says what really happened.
  public enum Outcome: Sendable, Hashable {
    /// The whole record was left out.
    case recordSkipped
    /// This value was set aside; the record was kept without it (a bad image URL, an unreadable date).
    case valueDropped
    /// The record has the URL of an earlier one of the same response, which it replaces.
    case replacedEarlier
    /// Nothing was set aside: the value was read another way (a charset fallback, XML libxml2 recovered, HTML
    /// entities read as HTML's), and ``reason`` says how.
    case noted
  }

  /// The record's position in the response's `articles` array (0-based).
  public var index: Int
  /// The record's `url`, when it has a readable one.
  public var url: String?
  /// The key path of the offending value, e.g. `articles[3].publishedAt`.
  public var keyPath: String
  /// What was wrong, e.g. `not an RFC 3339 date: "yesterday"`.
  public var reason: String
  /// What became of the record or value.
  public var outcome: Outcome

  /// `true` when the whole record was skipped (``Outcome/recordSkipped``).
  public var skipped: Bool { outcome == .recordSkipped }

  /// An issue of the record at `index` (0-based) in the response, at `keyPath`, and what became of it.
  public init(index: Int, url: String?, keyPath: String, reason: String, outcome: Outcome) {
    self.index = index
    self.url = url
    self.keyPath = keyPath
    self.reason = reason
    self.outcome = outcome
  }

  /// `keyPath (url): reason`, then `; record skipped` or `; value dropped` when the reason does not say it already;
  /// a replaced record and a note say no more than their reason. An issue of the whole document (an empty
  /// ``keyPath``: a feed's recovered XML, its encoding) is its reason alone (`IssuePlace`).
  public var description: String {
    let said = reason.hasSuffix("value dropped") || reason.hasSuffix("record skipped")
    let outcome =
      switch self.outcome {
      case .recordSkipped where !said: "; record skipped"
      case .valueDropped where !said: "; value dropped"
      default: ""
      }
    return IssuePlace.text(reason + outcome, at: keyPath, url.map { "(\($0))" })
  }
}
