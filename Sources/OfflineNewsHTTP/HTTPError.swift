import Foundation

/// Why an HTTP request got no response. Any response, whatever its status, is an answer (``HTTPResponse``), not an
/// error: what a `404` or a `503` means is the client's to say. No case includes a secret of the request.
public enum HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No complete HTTP response: refused, DNS failure, timeout, connection lost, TLS…
  case transport(TransportFailure, detail: String)
  /// Not an `http` or `https` URL (the URL, redacted).
  case unsupportedURL(String)
  /// More than `limit` redirects in a row (a loop, or a chain too long).
  case tooManyRedirects(limit: Int)
  /// A redirect the transport's ``RedirectTargetRule`` refused to follow: the reason it gave (`news serve`, beyond
  /// loopback: the target is on its own machine or network).
  case redirectRefused(String)

  /// The kind of transport failure, as far as it can be told.
  public enum TransportFailure: String, Sendable, Hashable {
    /// The host refused the connection (nothing listens on the port).
    case connectionRefused = "connection refused"
    /// The host name did not resolve (DNS).
    case hostNotFound = "host not found"
    /// No complete answer within the whole-request deadline.
    case timedOut = "timed out"
    /// The connection closed before the answer was complete.
    case connectionLost = "connection lost"
    /// The machine has no network.
    case notConnected = "not connected to the internet"
    /// TLS failed (certificate, protocol); not retried.
    case secureConnectionFailed = "secure connection failed"
    /// Any other transport failure; the detail says which.
    case other = "transport error"
  }

  /// A one-line summary for people, e.g. `connection refused` or `timed out (no complete answer within 5 s)`.
  public var description: String {
    switch self {
    case .transport(let failure, let detail): detail.isEmpty ? failure.rawValue : "\(failure.rawValue) (\(detail))"
    case .unsupportedURL(let url): "unsupported URL \(url) (use http or https)"
    case .tooManyRedirects(let limit): "more than \(limit) redirects"
    case .redirectRefused(let reason): "redirect not followed: \(reason)"
    }
  }

  /// Whether another attempt may succeed: every transport failure except a TLS failure (a bad certificate stays
  /// bad) and a cancellation; never an unsupported URL, a redirect loop or a refused redirect (``RetryPolicy``).
  package var isRetryable: Bool {
    switch self {
    case .transport(let failure, let detail): failure != .secureConnectionFailed && detail != "cancelled"
    case .unsupportedURL, .tooManyRedirects, .redirectRefused: false
    }
  }

  /// This error with every one of `secrets` redacted from its texts.
  package func redacted(_ secrets: [String]) -> HTTPError {
    switch self {
    case .transport(let failure, let detail): .transport(failure, detail: Redaction.redacted(detail, secrets: secrets))
    case .unsupportedURL(let url): .unsupportedURL(Redaction.redacted(url, secrets: secrets))
    case .tooManyRedirects: self
    case .redirectRefused(let reason): .redirectRefused(Redaction.redacted(reason, secrets: secrets))
    }
  }
}
