import Foundation
import OfflineNews
import OfflineNewsFeeds
import OfflineNewsModel
import OfflineNewsNetwork

/// The hint printed under an error about reading a source, chosen by what actually went wrong: a missing file is
/// not a mapping problem, a web page or an HTTP 404 is what came back rather than a network that is down.
enum FailureHint {
  /// The hint for `error`, met while reading `query` (a file or an http(s) URL); `nil` when there is nothing
  /// useful to add. `currentDirectory` is named when a relative path may have been resolved against it.
  static func reading(_ query: NewsQuery, _ error: NewsNetworkError, currentDirectory: String) -> String? {
    switch error {
    case .transport(_, let detail) where detail == NetworkStack.filesOnlyDetail:
      return NetworkProgram.hint(folder: NetworkProgram.executableFolder)
    case .transport(.secureConnectionFailed, _):
      // The network is there; the server's certificate or TLS is what failed, and waiting does not change it.
      return "the server's TLS or certificate was refused: a private certificate authority is trusted through "
        + "CURL_CA_BUNDLE (a PEM file) or SSL_CERT_DIR; 'news list' shows everything cached"
    case .transport:
      return "try again when the network is back; 'news list' shows everything cached"
    case .api(let apiError):
      switch apiError.code {
      case .apiKeyMissing, .apiKeyInvalid, .apiKeyDisabled:
        return "set NEWSAPI_KEY to your NewsAPI key (https://newsapi.org/register)"
      case .apiKeyExhausted, .rateLimited, .maximumResultsReached:
        return "NewsAPI limits what a key may ask: try again later, or ask for fewer pages"
      case .parameterInvalid, .parametersMissing, .sourcesTooMany, .sourceDoesNotExist:
        return "check the URL's query against https://newsapi.org/docs/endpoints"
      default:
        return nil
      }
    case .httpStatus(let status, let body):
      switch status {
      case 300..<400 where body.hasPrefix("a redirect"):
        return "the URL redirects to another site: give the address it redirects to"
      case 401, 403:
        return query.asksNewsAPI
          ? "the server refused the request: check the URL and NEWSAPI_KEY"
          : "the server refused the request: check the URL (a feed behind a login is not read)"
      case 404, 410:
        return query.asksNewsAPI
          ? "the server has no page at this URL: check it (e.g. https://newsapi.org/v2/top-headlines?country=us)"
          : "the server has no page at this URL: check it, or find the site's feed again: news add https://SITE/"
      case 429:
        return "the server asks for fewer requests: try again later"
      case 500..<600:
        return "the server failed: try again later; 'news list' shows everything cached"
      default:
        return query.asksNewsAPI
          ? "check the URL: it must answer with a NewsAPI v2 response"
          : "check the URL: it must answer with a feed (RSS, Atom, JSON Feed) or a NewsAPI v2 response"
      }
    case .invalidResponse(let problem):
      return hint(for: problem.kind, reading: query)
    case .unreadableFile(let path, let reason):
      switch reason {
      case "no such file":
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return FileManager.default.fileExists(atPath: folder)
          ? "check the file name (relative paths start from \(currentDirectory))"
          : "no folder \(folder) either: check the path (relative paths start from \(currentDirectory))"
      case "is a directory":
        return "give a file, not a folder"
      case let other where other.lowercased().contains("permission"):
        return "check the file's permissions (ls -l \(path))"
      default:
        return nil
      }
    case .unsupportedURL:
      return "use an http(s) URL or a file"
    case .tooLarge:
      return query.url.isFileURL
        ? "a feed is rarely more than a few MiB: check that this file is one feed (an OPML list, an archive or a "
          + "dump is not); a large NewsAPI-format file is imported in batches by 'news import FILE'"
        : "a feed or NewsAPI response is rarely more than a few MiB: check that the URL is the feed's"
    }
  }

  /// The hint for a body that is no response `news` reads, by its typed cause (``BodyProblem/Kind``).
  /// `command`: the `news` command that read it (`import`, `add`), named where the hint says to try it again.
  static func hint(for kind: BodyProblem.Kind, reading query: NewsQuery, command: String = "import") -> String? {
    let isFile = query.url.isFileURL
    switch kind {
    case .htmlPageAnnouncingNoFeed:
      // A saved article page that announces no feed (most do not: bbc, cnn, nytimes pages in the real captures):
      // what it has is its article, which `news extract` reads.
      return isFile
        ? "this is a web page that announces no feed: 'news extract \(query.url.path)' shows its readable "
          + "article; to follow the site, give its feed's URL (or 'news add' with the site's address)"
        : "this is a web page that announces no feed: to follow the site, give its feed's URL (or 'news add' "
          + "with the site's address); saved to a file, 'news extract FILE' shows its readable article"
    case .htmlPage:
      // A feed reader's user gave a site's page: `news add` finds the feed it announces.
      let page =
        isFile
        ? "this is a web page, not a feed or a NewsAPI response: 'news add URL' with the page's address "
          + "subscribes to the feed it announces"
        : "this is a web page, not a feed or a NewsAPI response: 'news add \(name(query))' subscribes to the feed "
          + "it announces"
      return page + "; for NewsAPI, give the API's URL (e.g. https://newsapi.org/v2/top-headlines?country=us)"
    case .subscriptionList:
      return subscriptionList(name(query), isFile: isFile)
    case .xmlNotAFeed:
      return "this is XML, but no feed news reads (RSS 0.9x and 2.0, RSS 1.0 (RDF), Atom) nor a NewsAPI response"
    case .compressed:
      return isFile
        ? "unpack it first (gunzip -k FILE), then \(command) the file it gives"
        : "the server sent a compressed body without saying so: check the URL"
    case .binary:
      return "this is not a news file: news reads NewsAPI responses, RSS, Atom, RDF and JSON Feed files, OPML lists "
        + "and newsboat's urls file and cache.db (docs/CLI.md, \"Moving from newsboat\")"
    case .empty:
      return isFile
        ? "the file is empty: save or download it again"
        : "the server sent an empty body: try again later; 'news list' shows everything cached"
    case .truncated:
      return isFile
        ? "the file is cut off: save or download it again, whole (no mapping reads a part)"
        : "the response was cut off: try again; 'news list' shows everything cached"
    case .invalidJSON where isFile:
      // Text that is not JSON: a subscription list of another reader is the likely guess after a feed.
      return "for JSON that is not a NewsAPI response, give a mapping: news import FILE --mapping NAME "
        + "(docs/MAPPING.md); a newsboat urls file is read when its first entry is a feed URL, query:, exec: or "
        + "filter: line (docs/CLI.md, \"Moving from newsboat\")"
    case .unreadableFeed where isFile:
      return "news reads RSS, Atom, RDF and JSON Feed files, NewsAPI responses (other JSON with --mapping NAME, "
        + "docs/MAPPING.md), OPML lists and newsboat urls files (read when the first entry is a feed URL, query:, "
        + "exec: or filter: line: docs/CLI.md, \"Moving from newsboat\")"
    case .unreadableFeed:
      // A feed (or text served where one was expected) that libxml2 cannot read: the message says where.
      return "the feed is broken where the message says: only its publisher can fix it "
        + "(https://validator.w3.org/feed/ shows the same problem); 'news list' shows everything cached"
    case .invalidJSON, .wrongShape, .noArticles, .protocolViolation, .cancelled:
      if isFile {
        return "for JSON that is not a NewsAPI response, give a mapping: news import FILE --mapping NAME "
          + "(docs/MAPPING.md)"
      }
      return "the URL answers with neither a feed (RSS, Atom, RDF, JSON Feed) nor a NewsAPI v2 response"
    }
  }

  /// The hint for an OPML subscription list given where a feed was expected (`fetch`, `add`): `news import` adds
  /// its feeds, and reads files only, so a list at a URL is saved first.
  static func subscriptionList(_ target: String, isFile: Bool) -> String {
    isFile
      ? "'news import \(target)' adds its feeds"
      : "save it, then import the file, which adds its feeds: curl -o subscriptions.opml '\(target)' && "
        + "news import subscriptions.opml"
  }

  /// How the input of a read is named in a message: a file by its path, a URL as people are shown it (no API key,
  /// no password: `NewsQuery.shown`).
  static func name(_ query: NewsQuery) -> String {
    query.url.isFileURL ? query.url.path : query.description
  }
}
