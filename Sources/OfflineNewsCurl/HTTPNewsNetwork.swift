import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork

/// The real ``NewsNetwork``: every format a news source sends — feeds (RSS 2.0, RSS 1.0, Atom, JSON Feed) and NewsAPI
/// v2 — over HTTP(S), decoded by ``ArticleDecoder`` unless given another decoder; a thin client of
/// ``CurlHTTPTransport``.
///
/// For example:
/// ```swift
/// let network = HTTPNewsNetwork(apiKey: ProcessInfo.processInfo.environment["NEWSAPI_KEY"], timeout: 5)
/// let page = try await network.fetch(NewsQuery(url: URL(string: "https://newsapi.org/v2/top-headlines?country=us")!))
/// ```
///
/// - The key is sent in the `X-Api-Key` header, as NewsAPI recommends (<https://newsapi.org/docs/authentication>),
///   never in the URL, and only to the hosts of its ``NewsAPIKey`` (`newsapi.org` by default): a feed or any other
///   host never gets it. It is removed from every error text (so is a key the URL carries, `?apiKey=`).
/// - `timeout` bounds the whole request, connection included. A server that never answers fails with
///   `NewsNetworkError/TransportFailure/timedOut`.
/// - Nothing is cached by the transport: the repository owns the cache.
/// - A `file:` URL is read by ``FileNewsNetwork``.
/// - `retry` decides which failures are tried again, after what wait, and when to give up (``RetryPolicy``; no
///   retries by default). `Retry-After` on a `429` or `5xx` response is honoured.
/// - Redirects: a request that carries the NewsAPI key follows them within its origin only (the key must not reach
///   another host; one elsewhere is ``NewsNetworkError/httpStatus(_:bodyPrefix:)`` with the `3xx`); one without a
///   secret (a feed) follows them to any `http(s)` origin, and a run of permanent ones (`301`, `308`) is reported as
///   ``NewsPage/movedPermanently``.
/// - Conditional requests: ``fetch(_:)-(NewsRequest)`` sends `If-None-Match` / `If-Modified-Since` for the
///   request's validators, reports `304 Not Modified` as ``NewsResponse/notModified(validators:movedPermanently:)``, and returns the
///   `ETag` / `Last-Modified` the server sent (RFC 9110 §13.1, §15.4.5).
public final class HTTPNewsNetwork: NewsNetwork {
  private let apiKey: NewsAPIKey?
  /// The request timeout in force, in seconds: per attempt.
  package let timeout: TimeInterval
  /// What is retried, and how.
  package let retry: RetryPolicy
  private let transport: CurlHTTPTransport
  private let decoder: any NewsPageDecoder

  /// What the client accepts: every format a news source may send, JSON first.
  static let accept =
    "application/json, application/feed+json, application/atom+xml, application/rss+xml, application/rdf+xml;q=0.9, "
    + "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"

  /// - Parameters:
  ///   - apiKey: the NewsAPI key (`NEWSAPI_KEY`), or `nil` to send none (NewsAPI then answers `apiKeyMissing`).
  ///   - apiKeyHosts: the hosts the key is sent to (each, or a subdomain); `newsapi.org` by default.
  ///   - timeout: seconds allowed for the whole request; default 5. Above `maximumTimeout` (one day, and infinity)
  ///     it is capped, and NaN, zero or a negative value mean 5; ``timeout`` says the value in force. Each attempt
  ///     gets the whole timeout.
  ///   - retry: which failures are retried and how; ``RetryPolicy/none`` (a single attempt) by default.
  ///   - decoder: what turns a body into articles; by default ``ArticleDecoder``, every format `news` reads (RSS 2.0,
  ///     RSS 1.0, Atom, JSON Feed, NewsAPI v2), told apart by content; ``NewsAPIDecoder`` for NewsAPI alone.
  public convenience init(
    apiKey: String?, apiKeyHosts: Set<String> = ["newsapi.org"], timeout: TimeInterval = 5,
    retry: RetryPolicy = .none, decoder: any NewsPageDecoder = ArticleDecoder()
  ) {
    self.init(
      key: apiKey.flatMap { $0.isEmpty ? nil : NewsAPIKey($0, hosts: apiKeyHosts) }, timeout: timeout, retry: retry,
      decoder: decoder)
  }

  /// As ``init(apiKey:apiKeyHosts:timeout:retry:decoder:)``, with the key and its hosts as one value; redirects
  /// `refusedRedirects` refuses are not followed (``CurlHTTPTransport/init(timeout:retry:secrets:refusedRedirects:)``).
  package init(
    key apiKey: NewsAPIKey?, timeout: TimeInterval = 5, retry: RetryPolicy = .none,
    decoder: any NewsPageDecoder = ArticleDecoder(), refusedRedirects: RedirectTargetRule? = nil
  ) {
    self.decoder = decoder
    self.apiKey = apiKey.flatMap { $0.value.isEmpty ? nil : $0 }
    transport = CurlHTTPTransport(
      timeout: timeout, retry: retry, secrets: [self.apiKey?.value].compactMap { $0 },
      refusedRedirects: refusedRedirects)
    self.retry = retry
    self.timeout = transport.timeout
  }

  /// The longest timeout in force, in seconds: ``CurlHTTPTransport/maximumTimeout``.
  package static let maximumTimeout: TimeInterval = CurlHTTPTransport.maximumTimeout

  /// The timeout in force for a requested one, in seconds: ``CurlHTTPTransport/effectiveTimeout(_:)``.
  package static func effectiveTimeout(_ requested: TimeInterval) -> TimeInterval {
    CurlHTTPTransport.effectiveTimeout(requested)
  }

  /// Fetches `query` unconditionally, with retries as ``retry`` says.
  ///
  /// - Throws: ``NewsNetworkError``: the last attempt's error when every attempt failed or a failure is not
  ///   retried.
  public func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    switch try await fetch(NewsRequest(query: query)) {
    case .page(let page, _): return page
    case .notModified:
      throw .invalidResponse(BodyProblem(.protocolViolation, "304 Not Modified to an unconditional request"))
    }
  }

  /// Fetches `request.query`, conditionally when `request.validators` is not empty, with retries as ``retry``
  /// says.
  ///
  /// - Returns: ``NewsResponse/page(_:validators:)`` with the response's `ETag` / `Last-Modified`, or
  ///   ``NewsResponse/notModified(validators:movedPermanently:)`` for a `304` to a conditional request.
  /// - Throws: ``NewsNetworkError``; a `304` to a request without validators is
  ///   ``NewsNetworkError/invalidResponse(detail:)``.
  public func fetch(_ request: NewsRequest) async throws(NewsNetworkError) -> NewsResponse {
    let query = request.query
    if query.url.isFileURL {
      return .page(try await FileNewsNetwork(decoder: decoder).fetch(query), validators: .none)
    }
    guard query.url.isWebURL else {
      throw .unsupportedURL(query.description)
    }
    var headers = ["Accept": Self.accept]
    if let apiKey, apiKey.isSent(to: query.url) { headers["X-Api-Key"] = apiKey.value }
    // A key may also be given in the URL (NewsAPI accepts ?apiKey=): it is a secret too.
    let secrets = [apiKey?.value, Self.keyInURL(query.url)].compactMap { $0 }
    let response: HTTPResponse
    do {
      // A request with no secret (a feed) follows a redirect to any origin — feeds move to https and to new
      // hosts — and one carrying the NewsAPI key stays within its origin.
      response = try await transport.send(
        HTTPRequest(
          url: query.url, headers: headers, validators: request.validators,
          maxBodyBytes: NewsRequest.maximumBodySize, secrets: secrets,
          redirects: secrets.isEmpty ? .anyOrigin : .sameOrigin))
    } catch {
      throw NewsNetworkError(error)
    }
    let status = response.status
    if (300..<400).contains(status), status != 304,
      let location = response.header("Location").map(HTTPFieldText.uriReference)
    {
      // Followed only within the origin: this one points elsewhere.
      let shown =
        Self.keyInURL(URL(string: location) ?? query.url) == nil
        ? String(NewsQuery.shown(location).prefix(200)) : "another host"
      throw Self.redacted(
        .httpStatus(status, bodyPrefix: "a redirect to another origin is not followed (\(shown))"), secrets: secrets)
    }
    if response.bodyLimitExceeded != nil {
      // The transport stopped at the cap: by the announced Content-Length, or past the cap without one.
      let announced = response.header("Content-Length").flatMap { Int($0) }
      throw .tooLarge(bytes: announced, limit: NewsRequest.maximumBodySize)
    }
    if status == 304 {
      guard !request.validators.isEmpty else {
        throw .invalidResponse(BodyProblem(.protocolViolation, "304 Not Modified to an unconditional request"))
      }
      return .notModified(
        validators: response.validators,
        movedPermanently: response.permanentURL != query.url ? response.permanentURL : nil)
    }
    do {
      var page = try decoder.decodePage(
        response.body, origin: query.url, contentType: response.header("Content-Type"), httpStatus: status,
        redacting: secrets)
      if response.permanentURL != query.url { page.movedPermanently = response.permanentURL }
      return .page(page, validators: response.validators)
    } catch {
      throw Self.redacted(error, secrets: secrets)
    }
  }

  /// The value of an `apiKey` query item (any letter case), if the URL has one.
  static func keyInURL(_ url: URL) -> String? {
    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
      .first { $0.name.lowercased() == "apikey" }?.value.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The error with every occurrence of a secret replaced by `<redacted>` (``Redaction``).
  private static func redacted(_ error: NewsNetworkError, secrets: [String]) -> NewsNetworkError {
    func clean(_ text: String) -> String { Redaction.redacted(text, secrets: secrets) }
    switch error {
    case .transport(let failure, let detail): return .transport(failure, detail: clean(detail))
    case .httpStatus(let status, let body): return .httpStatus(status, bodyPrefix: clean(body))
    case .api(var apiError):
      apiError.message = clean(apiError.message)
      return .api(apiError)
    case .invalidResponse(var problem):
      problem.detail = clean(problem.detail)
      return .invalidResponse(problem)
    case .unreadableFile(let path, let reason): return .unreadableFile(path: clean(path), reason: clean(reason))
    case .unsupportedURL(let url): return .unsupportedURL(clean(url))
    case .tooLarge: return error
    }
  }
}

/// The old name of ``HTTPNewsNetwork`` (its transport ran on URLSession until libcurl replaced it).
@available(*, deprecated, renamed: "HTTPNewsNetwork")
public typealias URLSessionNewsNetwork = HTTPNewsNetwork
