import Foundation

/// One HTTP `GET`: the URL and headers, the validators of a copy already held (a conditional GET), a cap on the body,
/// the secrets no error may show, and which redirects are followed.
///
/// For example:
/// ```swift
/// let request = HTTPRequest(
///   url: URL(string: "https://example.org/feed.xml")!, headers: ["Accept": "application/rss+xml"],
///   validators: CacheValidators(etag: #""33a64df5""#), maxBodyBytes: 8_000_000)
/// let response = try await CurlHTTPTransport(timeout: 5).send(request)
/// ```
public struct HTTPRequest: Sendable, Hashable {
  /// An `http` or `https` URL; any other scheme is ``HTTPError/unsupportedURL(_:)``.
  public var url: URL
  /// Request headers (names in any letter case), sent on every hop of a redirect chain within the origin.
  public var headers: [String: String]
  /// The validators of the copy already held: when not empty, the request is conditional (`If-None-Match` for the
  /// entity tag, `If-Modified-Since` for the date, RFC 9110 §13.1.2 and §13.1.3) and a `304 Not Modified` is an
  /// answer like any other.
  public var validators: CacheValidators
  /// The largest body read, in bytes; past it (or when `Content-Length` announces more) the transfer stops and the
  /// response comes back with ``HTTPResponse/bodyLimitExceeded`` set and an empty body. `nil`: no cap.
  public var maxBodyBytes: Int?
  /// Texts never shown in an error (API keys, tokens sent in headers or in the URL): each is replaced by
  /// `<redacted>` (`Redaction`).
  public var secrets: [String]
  /// Which redirects are followed.
  public var redirects: Redirects

  /// Which redirects (`301`, `302`, `303`, `307`, `308` with a `Location`, RFC 9110 §15.4) a transport follows, at
  /// most `CurlHTTPTransport/maximumRedirects` in a row.
  public enum Redirects: Sendable, Hashable {
    /// Only to the request's own origin (scheme, host and port, RFC 6454): the request's headers (an API key, a
    /// Parse REST key or session token) never reach another host. A redirect elsewhere is the answer: the `3xx`
    /// response is returned, its `Location` unfollowed.
    case sameOrigin
    /// To any `http` or `https` URL (subscribing to a feed that moved to another host). Past the request's origin,
    /// the headers whose value contains one of ``HTTPRequest/secrets`` are not sent.
    case anyOrigin
  }

  /// - Parameters:
  ///   - url: what to get.
  ///   - headers: request headers; none by default (the transport adds `User-Agent`).
  ///   - validators: of a copy already held, for a conditional GET; none by default.
  ///   - maxBodyBytes: bytes; no cap by default.
  ///   - secrets: texts to redact from every error; empty texts are ignored.
  ///   - redirects: ``Redirects/sameOrigin`` by default.
  public init(
    url: URL, headers: [String: String] = [:], validators: CacheValidators = .none, maxBodyBytes: Int? = nil,
    secrets: [String] = [], redirects: Redirects = .sameOrigin
  ) {
    self.url = url
    self.headers = headers
    self.validators = validators
    self.maxBodyBytes = maxBodyBytes.map { max(0, $0) }
    self.secrets = secrets.filter { !$0.isEmpty }
    self.redirects = redirects
  }

  /// ``headers`` with the conditional headers for ``validators`` (which replace any the caller set).
  package var headersToSend: [String: String] {
    var fields = headers.filter { !["if-none-match", "if-modified-since"].contains($0.key.lowercased()) }
    if let etag = validators.etag { fields["If-None-Match"] = etag }
    if let date = validators.lastModified { fields["If-Modified-Since"] = date }
    return fields
  }
}

/// Which redirects a transport refuses to follow, whatever ``HTTPRequest/Redirects`` allows: called with the URL the
/// request first asked for and a redirect's target before it is followed; the reason it is refused (a text for
/// people, naming the target), or `nil` to follow it. A refused redirect fails the request with
/// ``HTTPError/redirectRefused(_:)``. `news serve` listening beyond loopback gives one to the reads it starts itself
/// (`OfflineNewsServer`'s `NewsServer.redirectRule`), so that a feed cannot send it to its own machine or network.
public typealias RedirectTargetRule = @Sendable (_ original: URL, _ target: URL) -> String?
