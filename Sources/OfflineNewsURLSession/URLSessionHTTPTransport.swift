import Foundation
import OfflineNewsHTTP

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession`: the one place the package talks HTTP (NewsAPI, feeds, Parse Server, file
/// and page downloads).
///
/// For example:
/// ```swift
/// let transport = URLSessionHTTPTransport(timeout: 5, retry: .standard)
/// let response = try await transport.send(HTTPRequest(url: URL(string: "https://example.org/feed.xml")!))
/// ```
///
/// - One session, ephemeral, with no `URLCache`: nothing is cached by URLSession (the store owns the cache).
/// - ``timeout`` bounds each attempt as a whole, redirects and body included, not only the idle time between bytes:
///   a server that never answers, or drips its body, fails with ``HTTPError/TransportFailure/timedOut``.
/// - Retries per ``retry`` (``RetryPolicy``): transport failures, `5xx` and `429`, honouring `Retry-After`; when it
///   gives up on a status, that response is returned for the caller to read.
/// - Redirects are followed by the request's rule (``HTTPRequest/Redirects``, same origin by default), at most
///   `maximumRedirects` in a row, within the one deadline; the response says where it ended
///   (``HTTPResponse/url``, ``HTTPResponse/permanentURL``).
/// - A body over the request's ``HTTPRequest/maxBodyBytes`` stops the transfer (never retried).
/// - Secrets (the transport's and the request's) are redacted from every error.
public final class URLSessionHTTPTransport: HTTPTransport {
  /// The per-attempt timeout in force, in seconds (see `effectiveTimeout(_:)`).
  package let timeout: TimeInterval
  /// Which failures are retried and how.
  package let retry: RetryPolicy
  private let secrets: [String]
  /// The redirects refused whatever a request allows; `nil`: none.
  private let refusedRedirects: RedirectTargetRule?
  private let session: URLSession
  private let tasks = SessionTasks()

  /// The longest run of redirects followed (curl's default is 50, browsers' about 20; a feed or an API that needs
  /// more than 5 is broken).
  package static let maximumRedirects = 5

  /// The longest timeout in force, in seconds (one day): ``RequestTimeout/maximum``.
  package static let maximumTimeout: TimeInterval = RequestTimeout.maximum

  /// The timeout in force for a requested one, in seconds: ``RequestTimeout/effective(_:)``.
  package static func effectiveTimeout(_ requested: TimeInterval) -> TimeInterval {
    RequestTimeout.effective(requested)
  }

  /// The timeout handed to URLSession itself for a deadline of `timeout` seconds: twice it and ten seconds more,
  /// at most ``RequestTimeout/maximum``. The deadline is this transport's own (a Dispatch timer that cancels the
  /// data task, see `SessionTasks`); URLSession's timer is only a backstop for a task whose cancel had to wait. It
  /// must never fire first: swift-corelibs-foundation's timer, when it fires while a redirect's answer is pending
  /// (the delegate queue late under load), completes the task under it, and the answer then traps ("Received
  /// callback for HTTP redirection, but we're not waiting for it", `_HTTPURLProtocol.didCompleteRedirectCallback`).
  package static func backstopTimeout(_ timeout: TimeInterval) -> TimeInterval {
    min(timeout * 2 + 10, RequestTimeout.maximum)
  }

  /// - Parameters:
  ///   - timeout: seconds allowed per attempt (see `effectiveTimeout(_:)`); default 5.
  ///   - retry: ``RetryPolicy/none`` (a single attempt) by default.
  ///   - secrets: texts never to show in an error of any request (keys this transport sends), besides each
  ///     request's own ``HTTPRequest/secrets``.
  ///   - refusedRedirects: redirects not followed whatever a request allows (``RedirectTargetRule``); none by
  ///     default. A refused one fails the request with ``HTTPError/redirectRefused(_:)``.
  public init(
    timeout: TimeInterval = 5, retry: RetryPolicy = .none, secrets: [String] = [],
    refusedRedirects: RedirectTargetRule? = nil
  ) {
    self.refusedRedirects = refusedRedirects
    self.timeout = Self.effectiveTimeout(timeout)
    self.retry = retry
    self.secrets = secrets.filter { !$0.isEmpty }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = Self.backstopTimeout(self.timeout)
    configuration.timeoutIntervalForResource = Self.backstopTimeout(self.timeout)
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpAdditionalHeaders = ["User-Agent": "OfflineNews/0.1"]
    session = URLSession(configuration: configuration, delegate: tasks, delegateQueue: nil)
  }

  deinit { session.finishTasksAndInvalidate() }

  /// Sends `request` with retries (see the type's documentation).
  ///
  /// - Returns: the last response: any status, a `304` included; a `5xx` or `429` when the retries gave up.
  /// - Throws: ``HTTPError``: the last attempt's transport failure, an unsupported URL, too many redirects.
  public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    let secrets = self.secrets + request.secrets
    guard RedirectRule.isHTTP(request.url) else {
      throw HTTPError.unsupportedURL(request.url.absoluteString).redacted(secrets)
    }
    let policy = retry
    return try await policy.attempts(attemptTimeout: timeout) { _ in
      let response: HTTPResponse
      do throws(HTTPError) {
        response = try await self.exchange(request, secrets: secrets)
      } catch {
        return .failed(RetryPolicy.Failure(error.redacted(secrets)))
      }
      guard response.bodyLimitExceeded == nil, RetryPolicy.isRetryable(status: response.status) else {
        return .succeeded(response)
      }
      let retryAfter = response.header("Retry-After").flatMap { RetryPolicy.retryAfter($0, now: policy.now()) }
      return .retryable(response, retryAfter: retryAfter)
    }
  }

  /// `url` with its scheme in lower case: schemes are case-insensitive (RFC 3986 §3.1), and URLSession refuses
  /// `HTTP://…` as an unsupported URL.
  static func wireURL(_ url: URL) -> URL {
    guard let scheme = url.scheme, scheme != scheme.lowercased(),
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return url }
    components.scheme = scheme.lowercased()
    return components.url ?? url
  }

  /// One attempt: the request and the redirects it is allowed, all within one ``timeout``.
  private func exchange(_ request: HTTPRequest, secrets: [String]) async throws(HTTPError) -> HTTPResponse {
    var urlRequest = URLRequest(
      url: Self.wireURL(request.url), cachePolicy: .reloadIgnoringLocalCacheData,
      timeoutInterval: Self.backstopTimeout(timeout))
    for (name, value) in request.headersToSend { urlRequest.setValue(value, forHTTPHeaderField: name) }
    let rule = RedirectRule(
      original: request.url, anyOrigin: request.redirects == .anyOrigin, secrets: secrets, limit: Self.maximumRedirects,
      refuses: refusedRedirects)
    let outcome: DataTaskOutcome
    do {
      outcome = try await tasks.run(
        urlRequest, on: session, timeout: timeout, maxBytes: request.maxBodyBytes, redirects: rule)
    } catch {
      throw HTTPError.from(error, timeout: timeout)
    }
    if outcome.redirects.overLimit { throw .tooManyRedirects(limit: Self.maximumRedirects) }
    if let reason = outcome.redirects.refused { throw .redirectRefused(reason) }
    guard let http = outcome.response as? HTTPURLResponse else {
      throw HTTPError.transport(.other, detail: "not an HTTP response")
    }
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { fields[name] = value }
    }
    return HTTPResponse(
      url: outcome.redirects.url, status: http.statusCode, headers: fields, body: outcome.body,
      bodyLimitExceeded: outcome.bodyLimitExceeded, permanentURL: outcome.redirects.permanentURL)
  }
}
