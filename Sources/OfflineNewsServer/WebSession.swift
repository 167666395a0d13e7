/// A signed-in browser session of the web reader, as the server's front door established it (a `SameSite=Strict`,
/// `HttpOnly` cookie): what the web reader's pages need of it.
public struct WebSession: Sendable, Equatable {
  /// The session's CSRF token: every page that changes state sends it back, as the `X-CSRF-Token` header (from
  /// JavaScript) or a `csrf` form field; the front door refuses a POST, PUT or DELETE without it (403).
  public var csrfToken: String
  /// The user signed in, or `nil` when the server has no credentials (loopback only).
  public var user: String?

  /// - Parameters: see the properties of the same names.
  public init(csrfToken: String, user: String?) {
    self.csrfToken = csrfToken
    self.user = user
  }
}
