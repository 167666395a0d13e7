import Foundation

/// Where HTTP requests go: a protocol, so that tests and apps can inject their own. ``CurlHTTPTransport`` is
/// the real one.
public protocol HTTPTransport: Sendable {
  /// Sends `request` and returns the response, whatever its status (a `3xx` not followed, a `304` to a conditional
  /// request, a `5xx` still failing after the transport's retries).
  ///
  /// - Throws: ``HTTPError`` when no complete response arrived (after the retries the transport makes), for a URL
  ///   that is not `http`/`https`, or for a redirect loop; never with a secret of the request in its text.
  func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}

extension HTTPTransport {
  /// Sends a plain `GET` for `url` (see ``send(_:)``): `headers`, at most `maxBodyBytes` of the body, same-origin
  /// redirects, no validators.
  ///
  /// - Throws: ``HTTPError``, as ``send(_:)``.
  package func get(_ url: URL, headers: [String: String] = [:], maxBodyBytes: Int? = nil) async throws(HTTPError)
    -> HTTPResponse
  {
    try await send(HTTPRequest(url: url, headers: headers, maxBodyBytes: maxBodyBytes))
  }
}
