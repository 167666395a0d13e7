import Foundation
import OfflineNewsModel
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The real ``NewsNetwork``: NewsAPI v2 over HTTP(S) with `URLSession`.
///
/// For example:
/// ```swift
/// let network = URLSessionNewsNetwork(apiKey: ProcessInfo.processInfo.environment["NEWSAPI_KEY"], timeout: 5)
/// let page = try await network.fetch(NewsQuery(url: URL(string: "https://newsapi.org/v2/top-headlines?country=us")!))
/// ```
///
/// - The key is sent in the `X-Api-Key` header, as NewsAPI recommends (<https://newsapi.org/docs/authentication>),
///   never in the URL; it is removed from every error text.
/// - `timeout` bounds the whole request, connection included (URLSession's own default is 60 s). A server that
///   never answers fails with ``NewsNetworkError/TransportFailure/timedOut``.
/// - Nothing is cached by URLSession (ephemeral session, no `URLCache`): the repository owns the cache.
/// - A `file:` URL is read by ``FileNewsNetwork``.
/// - `retry` decides which failures are tried again, after what wait, and when to give up (``RetryPolicy``; no
///   retries by default). `Retry-After` on a `429` or `5xx` response is honoured.
/// - Conditional requests: ``fetch(_:)-(NewsRequest)`` sends `If-None-Match` / `If-Modified-Since` for the
///   request's validators, reports `304 Not Modified` as ``NewsResponse/notModified(validators:)``, and returns the
///   `ETag` / `Last-Modified` the server sent (RFC 9110 §13.1, §15.4.5).
public final class URLSessionNewsNetwork: NewsNetwork {
  private let apiKey: String?
  /// The request timeout in force, in seconds: per attempt.
  public let timeout: TimeInterval
  /// What is retried, and how.
  public let retry: RetryPolicy
  private let session: URLSession
  private let decoder = NewsAPIDecoder()

  /// - Parameters:
  ///   - apiKey: the NewsAPI key (`NEWSAPI_KEY`), or `nil` to send none (NewsAPI then answers `apiKeyMissing`).
  ///   - timeout: seconds allowed for the whole request; default 5. On Linux, URLSession (libcurl) counts whole
  ///     seconds and treats a fraction below one as zero (an immediate timeout), so the timeout is rounded up to
  ///     whole seconds there; above ``maximumTimeout`` (one day, and infinity) it is capped, and NaN, zero or a
  ///     negative value mean 5; ``timeout`` says the value in force. Each attempt gets the whole timeout.
  ///   - retry: which failures are retried and how; ``RetryPolicy/none`` (a single attempt) by default.
  public init(apiKey: String?, timeout: TimeInterval = 5, retry: RetryPolicy = .none) {
    self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
    self.retry = retry
    self.timeout = Self.effectiveTimeout(timeout)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = self.timeout
    configuration.timeoutIntervalForResource = self.timeout
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpAdditionalHeaders = ["Accept": "application/json", "User-Agent": "OfflineNews/0.1"]
    session = URLSession(configuration: configuration, delegate: SameOriginRedirects(), delegateQueue: nil)
  }

  deinit { session.finishTasksAndInvalidate() }

  /// The longest timeout in force, in seconds (one day): FoundationNetworking hands the timeout to libcurl as
  /// integer milliseconds and traps on values beyond `Int.max`, so larger ones (and infinity) are capped here.
  public static let maximumTimeout: TimeInterval = 86_400

  /// The timeout in force for a requested one, in seconds: at most ``maximumTimeout``; NaN, zero or a negative
  /// value mean the default, 5 s. On Linux, whole seconds, at least 1 (see ``init(apiKey:timeout:retry:)``).
  public static func effectiveTimeout(_ requested: TimeInterval) -> TimeInterval {
    let bounded = requested.isNaN || requested <= 0 ? 5 : min(requested, maximumTimeout)
    #if os(Linux)
      return max(1, bounded.rounded(.up))
    #else
      return bounded
    #endif
  }

  /// Fetches `query` unconditionally, with retries as ``retry`` says.
  ///
  /// - Throws: ``NewsNetworkError``: the last attempt's error when every attempt failed or a failure is not
  ///   retried.
  public func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    switch try await fetch(NewsRequest(query: query)) {
    case .page(let page, _): return page
    case .notModified: throw .invalidResponse(detail: "304 Not Modified to an unconditional request")
    }
  }

  /// Fetches `request.query`, conditionally when `request.validators` is not empty, with retries as ``retry``
  /// says.
  ///
  /// - Returns: ``NewsResponse/page(_:validators:)`` with the response's `ETag` / `Last-Modified`, or
  ///   ``NewsResponse/notModified(validators:)`` for a `304` to a conditional request.
  /// - Throws: ``NewsNetworkError``; a `304` to a request without validators is
  ///   ``NewsNetworkError/invalidResponse(detail:)``.
  public func fetch(_ request: NewsRequest) async throws(NewsNetworkError) -> NewsResponse {
    let query = request.query
    if query.url.isFileURL { return .page(try await FileNewsNetwork().fetch(query), validators: .none) }
    guard let scheme = query.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw .unsupportedURL(query.cacheKey)
    }
    var urlRequest = URLRequest(url: query.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
    if let apiKey { urlRequest.setValue(apiKey, forHTTPHeaderField: "X-Api-Key") }
    if let etag = request.validators.etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
    if let date = request.validators.lastModified {
      urlRequest.setValue(date, forHTTPHeaderField: "If-Modified-Since")
    }
    let conditional = !request.validators.isEmpty
    let policy = retry
    return try await policy.run(attemptTimeout: timeout) { _ throws(RetryPolicy.Failure) in
      try await self.attempt(urlRequest, conditional: conditional, now: policy.now)
    }
  }

  /// One HTTP exchange.
  private func attempt(_ request: URLRequest, conditional: Bool, now: @Sendable () -> Date)
    async throws(RetryPolicy.Failure) -> NewsResponse
  {
    let data: Data
    let response: URLResponse
    // A key may also be given in the URL (NewsAPI accepts ?apiKey=): it is a secret too.
    let urlKey = request.url.flatMap(Self.keyInURL)
    let secrets = [apiKey, urlKey].compactMap { $0 }
    do {
      (data, response) = try await exchange(request)
    } catch {
      throw RetryPolicy.Failure(redacted(Self.transportError(error, timeout: timeout), secrets: secrets))
    }
    let http = response as? HTTPURLResponse
    let status = http?.statusCode
    let validators = CacheValidators(
      etag: http?.value(forHTTPHeaderField: "ETag"), lastModified: http?.value(forHTTPHeaderField: "Last-Modified"))
    if let status, (300..<400).contains(status), status != 304,
      let location = http?.value(forHTTPHeaderField: "Location")
    {
      // Followed only within the origin (SameOriginRedirects): this one points elsewhere.
      let shown =
        Self.keyInURL(URL(string: location) ?? request.url ?? URL(fileURLWithPath: "/")) == nil
        ? String(location.prefix(200)) : "another host"
      throw RetryPolicy.Failure(
        redacted(
          .httpStatus(status, bodyPrefix: "a redirect to another origin is not followed (\(shown))"), secrets: secrets))
    }
    if status == 304 {
      guard conditional else {
        throw RetryPolicy.Failure(.invalidResponse(detail: "304 Not Modified to an unconditional request"))
      }
      return .notModified(validators: validators)
    }
    do {
      let contentType = http?.value(forHTTPHeaderField: "Content-Type")
      return .page(
        try decoder.decode(data, httpStatus: status, redacting: secrets, contentType: contentType),
        validators: validators)
    } catch {
      let retryAfter = http?.value(forHTTPHeaderField: "Retry-After").flatMap {
        RetryPolicy.retryAfter($0, now: now())
      }
      throw RetryPolicy.Failure(redacted(error, secrets: secrets), retryAfter: retryAfter)
    }
  }

  /// One data task, bounded by ``timeout`` as a whole: on Linux, URLSession (libcurl) enforces only the idle
  /// timeout, so a server that drips its body byte by byte would otherwise keep the request alive for ever. When
  /// the time is up, `URLError(.timedOut)` is thrown at once and the data task is cancelled.
  ///
  /// It uses a completion handler rather than `data(for:)`: cancelling the Swift task of a `data(for:)` call can
  /// deadlock swift-corelibs-foundation (the task's status lock against the session's work queue) when the
  /// request completes at that moment. Here nothing holds a task lock while the data task is cancelled, and the
  /// caller's own cancellation does not reach the data task (it ends by its timeout).
  private func exchange(_ request: URLRequest) async throws -> (Data, URLResponse) {
    try await boundedDataTask(request, session: session, timeout: timeout)
  }

  static func transportError(_ error: any Error, timeout: TimeInterval) -> NewsNetworkError {
    guard let error = error as? URLError else {
      return .transport(.other, detail: String(describing: type(of: error)))
    }
    switch error.code {
    case .cannotConnectToHost: return .transport(.connectionRefused, detail: "")
    case .cannotFindHost, .dnsLookupFailed: return .transport(.hostNotFound, detail: "")
    case .timedOut: return .transport(.timedOut, detail: "no complete answer within \(formatted(timeout)) s")
    case .networkConnectionLost: return .transport(.connectionLost, detail: "the server closed the connection")
    case .badServerResponse:
      // Linux (libcurl) reports a connection closed before any response as -1011, "Empty reply from server".
      return .transport(.connectionLost, detail: "the server closed the connection without an answer")
    case .unknown where error.localizedDescription.contains("transfer closed"):
      // Linux (libcurl) reports a body cut short of its Content-Length as -1 "transfer closed with N bytes
      // remaining to read", where Apple platforms say networkConnectionLost.
      return .transport(.connectionLost, detail: "the response was cut short")
    case .notConnectedToInternet: return .transport(.notConnected, detail: "")
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
      return .transport(.secureConnectionFailed, detail: "URLError \(error.code.rawValue)")
    case .cancelled: return .transport(.other, detail: "cancelled")
    default: return .transport(.other, detail: "URLError \(error.code.rawValue)")
    }
  }

  /// The error with every occurrence of the API key replaced by `<redacted>`.
  /// The value of an `apiKey` query item (any letter case), if the URL has one.
  static func keyInURL(_ url: URL) -> String? {
    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
      .first { $0.name.lowercased() == "apikey" }?.value.flatMap { $0.isEmpty ? nil : $0 }
  }

  private func redacted(_ error: NewsNetworkError, secrets: [String]) -> NewsNetworkError {
    let present = secrets.filter { error.description.contains($0) }
    guard !present.isEmpty else { return error }
    func clean(_ text: String) -> String {
      present.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }
    switch error {
    case .transport(let failure, let detail): return .transport(failure, detail: clean(detail))
    case .httpStatus(let status, let body): return .httpStatus(status, bodyPrefix: clean(body))
    case .api(var apiError):
      apiError.message = clean(apiError.message)
      return .api(apiError)
    case .invalidResponse(let detail): return .invalidResponse(detail: clean(detail))
    case .unreadableFile(let path, let reason): return .unreadableFile(path: clean(path), reason: clean(reason))
    case .unsupportedURL(let url): return .unsupportedURL(clean(url))
    }
  }
}

private func formatted(_ seconds: TimeInterval) -> String {
  seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}
