import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// ``HTTPTransport`` over libcurl (<https://curl.se/libcurl/>): the one place the package talks HTTP (NewsAPI, feeds,
/// Parse Server, file and page downloads).
///
/// For example:
/// ```swift
/// let transport = CurlHTTPTransport(timeout: 5, retry: .standard)
/// let response = try await transport.send(HTTPRequest(url: URL(string: "https://example.org/feed.xml")!))
/// ```
///
/// - Nothing is cached (the store owns the cache); connections, TLS sessions and DNS answers are kept between
///   requests (libcurl's, per easy handle; at most ``CurlHandles/kept`` idle handles).
/// - ``timeout`` bounds each attempt as a whole, connection, redirects and body included, not only the idle time
///   between bytes (libcurl's `CURLOPT_TIMEOUT_MS`, given the time left at each hop): a server that never answers,
///   or drips its body, fails with ``HTTPError/TransportFailure/timedOut``.
/// - Each attempt runs `curl_easy_perform` on a thread of its own, which waits for the socket in `poll(2)`: no CPU is
///   spent waiting for a slow server, and the cooperative pool is never blocked.
/// - Cancelling the calling task ends the request within about a second (libcurl's progress callback aborts the
///   transfer) with the transport failure `cancelled`, which is not retried.
/// - Retries per ``retry`` (``RetryPolicy``): transport failures, `5xx` and `429`, honouring `Retry-After`; when it
///   gives up on a status, that response is returned for the caller to read.
/// - Redirects are followed by the request's rule (``HTTPRequest/Redirects``, same origin by default), at most
///   `maximumRedirects` in a row, within the one deadline; the response says where it ended
///   (``HTTPResponse/url``, ``HTTPResponse/permanentURL``). `Location` is resolved by the package's one resolver
///   (`URLReference`, RFC 3986 §5.2), as links in feeds and pages are.
/// - Bodies are decoded from every `Content-Encoding` libcurl supports (it sends `Accept-Encoding` for them).
/// - A body over the request's ``HTTPRequest/maxBodyBytes`` stops the transfer (never retried).
/// - Secrets (the transport's and the request's) are redacted from every error.
/// - Field values are read and sent one octet per scalar (ISO-8859-1, RFC 9110 §5.5's `obs-text`), so that an
///   `ETag` that is not UTF-8 goes back in `If-None-Match` byte for byte; a `Location` is read as UTF-8 when it is.
public final class CurlHTTPTransport: HTTPTransport {
  /// The per-attempt timeout in force, in seconds (see `effectiveTimeout(_:)`).
  package let timeout: TimeInterval
  /// Which failures are retried and how.
  package let retry: RetryPolicy
  private let secrets: [String]
  /// The redirects refused whatever a request allows; `nil`: none.
  private let refusedRedirects: RedirectTargetRule?
  private let handles = CurlHandles()

  /// The longest run of redirects followed (curl's default is 50, browsers' about 20; a feed or an API that needs
  /// more than 5 is broken).
  package static let maximumRedirects = 5

  /// The longest timeout in force, in seconds (one day): ``RequestTimeout/maximum``.
  package static let maximumTimeout: TimeInterval = RequestTimeout.maximum

  /// The response fields that hold one value, not a list (RFC 9110 §5.3: only list fields may be combined).
  package static let singleValueFields: Set<String> = [
    "etag", "last-modified", "date", "expires", "retry-after", "content-type", "content-length", "location", "age",
  ]

  /// The `User-Agent` sent unless a request sets its own.
  package static let userAgent = "OfflineNews/0.1"

  /// The timeout in force for a requested one, in seconds: ``RequestTimeout/effective(_:)``.
  package static func effectiveTimeout(_ requested: TimeInterval) -> TimeInterval {
    RequestTimeout.effective(requested)
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
  }

  /// Sends `request` with retries (see the type's documentation).
  ///
  /// - Returns: the last response: any status, a `304` included; a `5xx` or `429` when the retries gave up.
  /// - Throws: ``HTTPError``: the last attempt's transport failure, an unsupported URL, too many redirects.
  public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    let secrets = self.secrets + request.secrets
    guard RedirectRule.isHTTP(request.url) else {
      throw HTTPError.unsupportedURL(NewsQuery.shown(request.url)).redacted(secrets)
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

  /// One attempt: the request and the redirects it is allowed, all within one ``timeout``, on a thread of its own.
  private func exchange(_ request: HTTPRequest, secrets: [String]) async throws(HTTPError) -> HTTPResponse {
    let cancel = CancelSignal()
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
        let thread = Thread {
          continuation.resume(returning: self.exchangeBlocking(request, secrets: secrets, cancel: cancel))
        }
        thread.start()
      }
    } onCancel: {
      cancel.cancel()
    }
    return try result.get()
  }

  /// ``exchange(_:secrets:)`` on the calling thread, which it blocks until the answer or the deadline.
  private func exchangeBlocking(_ request: HTTPRequest, secrets: [String], cancel: CancelSignal) -> Result<
    HTTPResponse, HTTPError
  > {
    guard let handle = handles.take() else {
      return .failure(.transport(.other, detail: "libcurl could not start a transfer"))
    }
    defer { handles.give(handle) }
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1_000_000_000)
    let rule = RedirectRule(
      original: request.url, anyOrigin: request.redirects == .anyOrigin, secrets: secrets, limit: Self.maximumRedirects,
      refuses: refusedRedirects)
    var chain = RedirectChain(request.url)
    var headers = request.headersToSend
    if !headers.keys.contains(where: { $0.lowercased() == "user-agent" }) { headers["User-Agent"] = Self.userAgent }
    while true {
      guard !cancel.isCancelled else { return .failure(.cancelled) }
      let now = DispatchTime.now().uptimeNanoseconds
      guard now < deadline else {
        return .failure(.timedOut(after: timeout))
      }
      let exchange = CurlExchange(
        url: chain.url, cancel: cancel, headers: headers,
        timeoutMilliseconds: Int((deadline - now) / 1_000_000), maxBodyBytes: request.maxBodyBytes)
      let response: CurlExchange.Response
      switch exchange.perform(on: handle) {
      case .failure(let failure): return .failure(HTTPError.from(failure, timeout: timeout))
      case .success(let answer): response = answer
      }
      let location = response.headers.first { $0.name.lowercased() == "location" }?.value
      if response.bodyLimitExceeded == nil, let location,
        let target = URLReference.resolve(HTTPFieldText.uriReference(location), against: chain.url),
        let next = chain.follow(response.status, to: target, headers: headers, by: rule)
      {
        headers = next
        continue
      }
      if chain.overLimit { return .failure(.tooManyRedirects(limit: Self.maximumRedirects)) }
      if let reason = chain.refused { return .failure(.redirectRefused(reason)) }
      return .success(
        HTTPResponse(
          url: chain.url, status: response.status, headers: Self.fields(response.headers), body: response.body,
          bodyLimitExceeded: response.bodyLimitExceeded, permanentURL: chain.permanentURL))
    }
  }

  /// Header fields as received, by lowercased name: a repeated field is one list, joined by commas (RFC 9110 §5.3);
  /// a field of one value (``singleValueFields``: a date, an entity tag) keeps its first, as a list of two would be
  /// neither (two `Last-Modified`s made an `If-Modified-Since` of two dates). Values are text one scalar per octet
  /// (`HTTPFieldText`, RFC 9110 §5.5), as the exchange reads them.
  package static func fields(_ received: [(name: String, value: String)]) -> [String: String] {
    var fields: [String: String] = [:]
    for (name, value) in received {
      let key = name.lowercased()
      if let earlier = fields[key] {
        if !singleValueFields.contains(key) { fields[key] = earlier + ", " + value }
      } else {
        fields[key] = value
      }
    }
    return fields
  }

}

/// The old name of ``CurlHTTPTransport`` (the transport ran on URLSession until libcurl replaced it).
@available(*, deprecated, renamed: "CurlHTTPTransport")
public typealias URLSessionHTTPTransport = CurlHTTPTransport
