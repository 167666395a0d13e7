import Foundation
import OfflineNewsHTML
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

/// Bounds on fetching articles' pages for their whole text.
public struct FullTextLimits: Sendable, Hashable {
  /// Pages downloaded at once, in all (default 4).
  package var concurrency: Int
  /// Pages downloaded at once from one host (default 2).
  package var perHost: Int
  /// The largest page read, in bytes (default 5 MiB); a larger one is a failure, not a truncated article.
  package var maxPageBytes: Int
  /// How long a failed page (or image) waits before it is tried again, in seconds (default one hour).
  package var retryAfter: TimeInterval
  /// Bounds on the images kept with each whole text (in the repository's ``NewsRepository/imageFolder``).
  package var images: ImageLimits

  /// Creates limits.
  public init(
    concurrency: Int = 4, perHost: Int = 2, maxPageBytes: Int = 5 << 20, retryAfter: TimeInterval = 3600,
    images: ImageLimits = ImageLimits()
  ) {
    self.concurrency = concurrency
    self.perHost = perHost
    self.maxPageBytes = maxPageBytes
    self.retryAfter = retryAfter
    self.images = images
  }
}

/// Why an article's whole text is not stored: the last attempt to fetch its page failed, when, and when a full-text
/// fetch tries it again (``NewsRepository/fullTextFailure(of:limits:)``; the attempt is noted with the article).
public struct FullTextFailure: Sendable, Hashable {
  /// What went wrong with the page.
  public enum Cause: Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an HTTP error status (`404`, `410`, `503`…).
    case httpStatus(Int)
    /// The download failed before an answer: a transport error (refused, not found, timed out, TLS, redirects), as
    /// the transport described it.
    case download(String)
    /// The page was larger than the limit (``FullTextLimits``), in bytes; `size` what the server announced or sent.
    case tooLarge(limit: Int, size: Int)
    /// The answer was not a web page: its `Content-Type`.
    case notAWebPage(contentType: String)
    /// The page could not be parsed as HTML: the parser's error.
    case unreadable(String)
    /// The page held no readable article (an index, a wall, a page made by scripts).
    case noReadableArticle

    /// The cause as noted with the article and reported: `HTTP 404`, `the page is larger than 5242880 bytes (…)`,
    /// `not a web page (application/pdf)`, `no readable article in the page`, or the transport's description.
    public var description: String {
      switch self {
      case .httpStatus(let status): "HTTP \(status)"
      case .download(let detail): detail
      case .tooLarge(let limit, let size): "the page is larger than \(limit) bytes (\(size))"
      case .notAWebPage(let type): "not a web page (\(type))"
      case .unreadable(let detail): "the page could not be read as HTML: \(detail)"
      case .noReadableArticle: "no readable article in the page"
      }
    }

    /// The cause a noted reason (``description``) says; a text of no other form is a ``download(_:)`` failure (the
    /// transport's description, or a note written by an older version).
    public init(noted text: String) {
      func integer(_ text: Substring) -> Int? { Int(text.trimmingWhiteSpace) }
      if text.hasPrefix("HTTP "), let status = integer(text.dropFirst(5)), (100..<1000).contains(status) {
        self = .httpStatus(status)
      } else if text.hasPrefix("the page is larger than "), text.hasSuffix(")"),
        case let rest = text.dropFirst("the page is larger than ".count).dropLast(),
        let split = rest.range(of: " bytes ("), let limit = integer(rest[..<split.lowerBound]),
        let size = integer(rest[split.upperBound...])
      {
        self = .tooLarge(limit: limit, size: size)
      } else if text.hasPrefix("not a web page ("), text.hasSuffix(")") {
        self = .notAWebPage(contentType: String(text.dropFirst("not a web page (".count).dropLast()))
      } else if text.hasPrefix("the page could not be read as HTML: ") {
        self = .unreadable(String(text.dropFirst("the page could not be read as HTML: ".count)))
      } else if text == "no readable article in the page" {
        self = .noReadableArticle
      } else {
        self = .download(text)
      }
    }
  }

  /// The article's key (``Article/url``).
  public var key: String
  /// What went wrong.
  public var cause: Cause
  /// When the attempt failed.
  public var failedAt: Date
  /// From when a full-text fetch tries the page again (`failedAt` + ``FullTextLimits``' wait, an hour by default);
  /// `fetchFullText(for:using:limits:retryFailed:)` with `retryFailed` tries it at once.
  public var retryAfter: Date

  /// A failure of the article `key`'s page at `failedAt`, tried again from `retryAfter`.
  public init(key: String, cause: Cause, failedAt: Date, retryAfter: Date) {
    self.key = key
    self.cause = cause
    self.failedAt = failedAt
    self.retryAfter = retryAfter
  }

  /// Whether a full-text fetch at `date` tries the page again (the wait is over).
  public func isDue(at date: Date) -> Bool { date >= retryAfter }
}

/// What a full-text fetch did.
public struct FullTextReport: Sendable, Hashable {
  /// Articles whose whole text was fetched and stored.
  public var fetched = 0
  /// Articles that had theirs already, or failed recently (not tried again yet).
  public var skipped = 0
  /// Articles whose page could not be fetched or read, with the reason (noted with the article, retried later).
  public var failures: [(key: String, reason: String)] = []
  /// Articles skipped because their page failed recently: each failure, soonest retried first (a later fetch tries
  /// them once ``FullTextFailure/retryAfter`` has passed; `retryFailed` tries them now).
  public var waiting: [FullTextFailure] = []
  /// Images stored for the articles handled (now or by an earlier call).
  public var imagesStored = 0
  /// Images that could not be stored, with the reason (noted in their rows, retried later).
  public var imageFailures: [(key: String, reason: String)] = []

  public static func == (lhs: FullTextReport, rhs: FullTextReport) -> Bool {
    lhs.fetched == rhs.fetched && lhs.skipped == rhs.skipped
      && lhs.failures.map(\.key) == rhs.failures.map(\.key) && lhs.failures.map(\.reason) == rhs.failures.map(\.reason)
      && lhs.waiting == rhs.waiting
      && lhs.imagesStored == rhs.imagesStored && lhs.imageFailures.map(\.key) == rhs.imageFailures.map(\.key)
      && lhs.imageFailures.map(\.reason) == rhs.imageFailures.map(\.reason)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(fetched)
    hasher.combine(skipped)
    hasher.combine(failures.map(\.key))
    hasher.combine(imagesStored)
  }
}

extension NewsRepository {
  /// Fetches the pages of `articles` that have no whole text yet, extracts each page's readable article
  /// (``ReadabilityExtractor``, after Mozilla Readability) and stores it beside the article (`FullText`:
  /// searchable; the source's own fields are never changed).
  ///
  /// Downloads go through `transport` (its timeout, retries and same-origin redirects), at most
  /// `FullTextLimits.concurrency` at once and `FullTextLimits.perHost` per host, each at most
  /// `FullTextLimits.maxPageBytes`. A page that fails — a transport error, an HTTP error status, a body that is not
  /// HTML, too large, or without a readable article — is noted with the article (`fullTextError`) and tried again
  /// after `FullTextLimits.retryAfter`; it never fails the call. Articles without a link (a Parse object) are
  /// skipped.
  ///
  /// With an `imageFolder`, the lead image (``Article/imageURL``) and the images of each whole text are kept
  /// offline too, within `FullTextLimits.images` (see ``ImageLimits``), through the same transport and the same
  /// bounds on concurrency; the stored HTML then links to the files (`src`, the remote address kept in
  /// `data-remote-src`). An image that fails is noted in its row (`ArticleImage.error`) and tried again by a later
  /// call after `FullTextLimits.retryAfter`, for articles whose whole text is already stored too; it never fails
  /// the article or the call.
  ///
  /// With `retryFailed`, the pages and images that failed are tried again now, however recently (`news fetch
  /// --full-text --retry-failed`); without it, those still waiting are skipped and listed in
  /// ``FullTextReport/waiting``.
  public func fetchFullText(
    for articles: [Article], using transport: any HTTPTransport, limits: FullTextLimits = FullTextLimits(),
    retryFailed: Bool = false
  ) async -> FullTextReport {
    var report = FullTextReport()
    let linked = articles.filter { $0.displayURL != nil }
    let keys = linked.map(\.url.absoluteString)
    let clock = self.clock
    let retryBefore =
      retryFailed
      ? Timestamp(millisecondsSince1970: .max)
      : Timestamp(millisecondsSince1970: clock().millisecondsSince1970 - Int64(limits.retryAfter * 1000))
    let needed = Set((try? await storage.keysNeedingFullText(keys, failedBefore: retryBefore)) ?? [])
    let noted = (try? await storage.fullTextFailures(forKeys: keys.filter { !needed.contains($0) })) ?? [:]
    report.waiting = noted.map { Self.failure(key: $0.key, noted: $0.value, limits: limits) }
      .sorted { ($0.retryAfter, $0.key) < ($1.retryAfter, $1.key) }
    // Whole texts stored before whose images are not all stored yet: their images only are tried again.
    let imagesOnly =
      imageFolder == nil
      ? [] : Set((try? await storage.keysNeedingImages(keys, failedBefore: retryBefore)) ?? []).subtracting(needed)
    report.skipped = articles.count - needed.count
    let limiter = HostLimiter(total: limits.concurrency, perHost: limits.perHost)
    let budget = ByteBudget(limits.images.maxBytesPerFetch)
    let extractor = ReadabilityExtractor()
    let storage = self.storage
    typealias Outcome = (key: String, failure: String?, fetched: Bool, images: Int, imageFailures: [String])
    await withTaskGroup(of: Outcome.self) { group in
      for article in linked where needed.contains(article.url.absoluteString) {
        guard let link = article.displayURL else { continue }
        let key = article.url.absoluteString
        group.addTask {
          let host = link.host ?? ""
          await limiter.acquire(host)
          let outcome = await Self.readable(link, transport: transport, extractor: extractor, limits: limits)
          await limiter.release(host)
          let now = clock()
          switch outcome {
          case .success(let text):
            do {
              try await storage.saveFullText(text, forKey: key, at: now)
            } catch {
              return (key, "the store refused it: \(error)", false, 0, [])
            }
            let images = await self.keepImages(
              key: key, html: text.html, lead: article.imageURL, transport: transport, limits: limits.images,
              limiter: limiter, budget: budget)
            return (key, nil, true, images.stored, images.failures)
          case .failure(let problem):
            try? await storage.recordFullTextFailure(problem.cause.description, forKey: key, at: now)
            return (key, problem.cause.description, false, 0, [])
          }
        }
      }
      for article in linked where imagesOnly.contains(article.url.absoluteString) {
        let key = article.url.absoluteString
        group.addTask {
          guard let html = try? await storage.article(url: key)?.fullTextHTML else { return (key, nil, false, 0, []) }
          let images = await self.keepImages(
            key: key, html: html, lead: article.imageURL, transport: transport, limits: limits.images,
            limiter: limiter, budget: budget)
          return (key, nil, false, images.stored, images.failures)
        }
      }
      for await outcome in group {
        if let failure = outcome.failure { report.failures.append((outcome.key, failure)) }
        if outcome.fetched { report.fetched += 1 }
        report.imagesStored += outcome.images
        report.imageFailures += outcome.imageFailures.map { (outcome.key, $0) }
      }
    }
    report.failures.sort { $0.key < $1.key }
    report.imageFailures.sort { ($0.key, $0.reason) < ($1.key, $1.reason) }
    return report
  }

  /// Why `article`'s whole text is not stored, when its page failed and when a full-text fetch (with these
  /// `limits`, whose `retryAfter` is the wait) tries it again; `nil` when its whole text is stored, or was never
  /// tried, or no cached article has its key.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func fullTextFailure(of article: Article, limits: FullTextLimits = FullTextLimits())
    async throws(NewsRepositoryError) -> FullTextFailure?
  {
    let key = article.url.absoluteString
    let noted = try await storing { try await storage.fullTextFailures(forKeys: [key]) }
    return noted[key].map { Self.failure(key: key, noted: $0, limits: limits) }
  }

  /// A failure as the store notes it (the reason and its time), typed.
  static func failure(key: String, noted: (reason: String, at: Timestamp), limits: FullTextLimits) -> FullTextFailure {
    FullTextFailure(
      key: key, cause: FullTextFailure.Cause(noted: noted.reason), failedAt: noted.at.date,
      retryAfter: Timestamp(millisecondsSince1970: noted.at.millisecondsSince1970 + Int64(limits.retryAfter * 1000))
        .date)
  }

  /// Why a page gave no whole text (an `Error` for `Result`).
  struct PageProblem: Error {
    var cause: FullTextFailure.Cause
  }

  /// One page: downloaded, checked, its readable article extracted.
  static func readable(
    _ link: URL, transport: any HTTPTransport, extractor: ReadabilityExtractor, limits: FullTextLimits
  ) async -> Result<FullText, PageProblem> {
    let response: HTTPResponse
    do {
      // No secret is sent, so a page that moved to another origin (http → https, another host) is followed.
      response = try await transport.send(
        HTTPRequest(
          url: link, headers: ["Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"],
          maxBodyBytes: limits.maxPageBytes, redirects: .anyOrigin))
    } catch {
      return .failure(PageProblem(cause: .download(error.description)))
    }
    if let size = response.bodyLimitExceeded {
      return .failure(PageProblem(cause: .tooLarge(limit: limits.maxPageBytes, size: size)))
    }
    guard (200..<300).contains(response.status) else {
      return .failure(PageProblem(cause: .httpStatus(response.status)))
    }
    let type = response.headers["content-type"]?.lowercased() ?? ""
    if !type.isEmpty, !(type.contains("html") || type.contains("xml")) {
      return .failure(PageProblem(cause: .notAWebPage(contentType: type)))
    }
    let charset = type.split(separator: ";").compactMap { part -> String? in
      let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingWhiteSpace }
      return pair.count == 2 && pair[0] == "charset"
        ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
    }.first
    let article: ReadableArticle?
    do {
      // Relative links resolve against where the page was found.
      article = try extractor.extract(from: response.body, url: response.url, charset: charset)
    } catch {
      return .failure(PageProblem(cause: .unreadable("\(error)")))
    }
    guard let article, !article.text.trimmingWhiteSpace.isEmpty else {
      return .failure(PageProblem(cause: .noReadableArticle))
    }
    return .success(FullText(html: article.content, text: article.text))
  }
}
