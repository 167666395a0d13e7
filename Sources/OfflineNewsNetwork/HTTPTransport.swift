import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A complete HTTP response: status, headers and the whole body.
public struct HTTPResponse: Sendable, Hashable {
  /// The HTTP status code, e.g. `200`.
  public var status: Int
  /// The response headers, keyed by lowercased name.
  public var headers: [String: String]
  /// The whole body, or its start when ``bodyLimitExceeded`` is set.
  public var body: Data
  /// When a GET with a byte limit stopped reading: the bytes read, or the `Content-Length` announced; else `nil`.
  public var bodyLimitExceeded: Int?

  public init(status: Int, headers: [String: String] = [:], body: Data, bodyLimitExceeded: Int? = nil) {
    self.status = status
    self.bodyLimitExceeded = bodyLimitExceeded
    self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
    self.body = body
  }

  /// The value of header `name` (any letter case), or `nil`.
  public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Plain HTTP GETs for clients other than NewsAPI's (the Parse Server sync engine, file downloads): a protocol, so
/// that tests and apps can inject their own.
public protocol HTTPTransport: Sendable {
  /// Sends a GET for `url` with `headers` and returns the response, whatever its status.
  ///
  /// - Throws: ``NewsNetworkError/transport(_:detail:)`` when no complete response arrived (after the retries the
  ///   transport makes); ``NewsNetworkError/httpStatus(_:bodyPrefix:)`` for a `429` or `5xx` that is still failing
  ///   after them. Other statuses are returned, for the caller to read their bodies.
  func get(_ url: URL, headers: [String: String]) async throws(NewsNetworkError) -> HTTPResponse

  /// As ``get(_:headers:)``, reading at most `maxBodyBytes` of the body: past them (or when `Content-Length`
  /// announces more) the transfer stops and the response comes back with ``HTTPResponse/bodyLimitExceeded`` set.
  /// Not retried then. The default implementation reads the whole body first, then checks.
  func get(_ url: URL, headers: [String: String], maxBodyBytes: Int) async throws(NewsNetworkError) -> HTTPResponse
}

extension HTTPTransport {
  public func get(_ url: URL, headers: [String: String], maxBodyBytes: Int) async throws(NewsNetworkError)
    -> HTTPResponse
  {
    var response = try await get(url, headers: headers)
    if response.body.count > maxBodyBytes {
      response.bodyLimitExceeded = response.body.count
      response.body = response.body.prefix(maxBodyBytes)
    }
    return response
  }
}

/// ``HTTPTransport`` over `URLSession`, with the same guarantees as ``URLSessionNewsNetwork``: each attempt bounded
/// as a whole by ``timeout`` (on Linux, whole seconds, at most one day), retries per a ``RetryPolicy`` for transport
/// errors, `429` and `5xx` (honouring `Retry-After`), and secrets (API keys sent in headers) redacted from every error.
public final class URLSessionHTTPTransport: HTTPTransport {
  /// The per-attempt timeout in force, in seconds.
  public let timeout: TimeInterval
  /// Which failures are retried and how.
  public let retry: RetryPolicy
  private let secrets: [String]
  private let session: URLSession
  private let configuration: URLSessionConfiguration

  /// - Parameters:
  ///   - timeout: seconds allowed per attempt (see ``URLSessionNewsNetwork/effectiveTimeout(_:)``); default 5.
  ///   - retry: ``RetryPolicy/none`` by default.
  ///   - secrets: texts never to show in an error (keys sent in headers or URLs).
  public init(timeout: TimeInterval = 5, retry: RetryPolicy = .none, secrets: [String] = []) {
    self.timeout = URLSessionNewsNetwork.effectiveTimeout(timeout)
    self.retry = retry
    self.secrets = secrets.filter { !$0.isEmpty }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = self.timeout
    configuration.timeoutIntervalForResource = self.timeout
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpAdditionalHeaders = ["User-Agent": "OfflineNews/0.1"]
    self.configuration = configuration
    session = URLSession(configuration: configuration, delegate: SameOriginRedirects(), delegateQueue: nil)
  }

  deinit { session.finishTasksAndInvalidate() }

  public func get(_ url: URL, headers: [String: String]) async throws(NewsNetworkError) -> HTTPResponse {
    try await get(url, headers: headers, limit: nil)
  }

  /// Stops reading past `maxBodyBytes` (see the protocol), on a session of its own so that no more is buffered.
  public func get(_ url: URL, headers: [String: String], maxBodyBytes: Int) async throws(NewsNetworkError)
    -> HTTPResponse
  {
    try await get(url, headers: headers, limit: max(0, maxBodyBytes))
  }

  private func get(_ url: URL, headers: [String: String], limit: Int?) async throws(NewsNetworkError) -> HTTPResponse {
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw .unsupportedURL(clean(url.absoluteString))
    }
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = self.session
    let configuration = self.configuration
    let timeout = self.timeout
    let policy = retry
    return try await policy.run(attemptTimeout: timeout) { _ throws(RetryPolicy.Failure) in
      let data: Data
      let response: URLResponse
      do {
        if let limit {
          (data, response) = try await cappedDataTask(
            request, configuration: configuration, timeout: timeout, maxBytes: limit)
        } else {
          (data, response) = try await boundedDataTask(request, session: session, timeout: timeout)
        }
      } catch let over as BodyOverLimit {
        let status = (over.response as? HTTPURLResponse)?.statusCode ?? 0
        return HTTPResponse(status: status, body: Data(), bodyLimitExceeded: over.bytes)
      } catch {
        throw RetryPolicy.Failure(self.redacted(URLSessionNewsNetwork.transportError(error, timeout: timeout)))
      }
      guard let http = response as? HTTPURLResponse else {
        throw RetryPolicy.Failure(.invalidResponse(detail: "not an HTTP response"))
      }
      var fields: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { fields[name] = value }
      }
      let answer = HTTPResponse(status: http.statusCode, headers: fields, body: data)
      if RetryPolicy.isRetryable(status: answer.status) {
        let retryAfter = answer.header("Retry-After").flatMap { RetryPolicy.retryAfter($0, now: policy.now()) }
        throw RetryPolicy.Failure(
          .httpStatus(
            answer.status,
            bodyPrefix: NewsAPIDecoder.prefix(
              of: data, redacting: self.secrets, contentType: answer.header("Content-Type"))),
          retryAfter: retryAfter)
      }
      return answer
    }
  }

  private func clean(_ text: String) -> String {
    secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
  }

  private func redacted(_ error: NewsNetworkError) -> NewsNetworkError {
    switch error {
    case .transport(let failure, let detail): return .transport(failure, detail: clean(detail))
    default: return error
    }
  }
}
