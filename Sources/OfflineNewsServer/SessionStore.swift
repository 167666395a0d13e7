import Foundation

/// The tokens the front door has issued, kept in memory only (a restart signs everyone out; clients log in again):
/// web sessions (the `news_session` cookie, with their CSRF token) and Google Reader logins (`Auth` from
/// `accounts/ClientLogin`, with the action token `T` of `reader/api/0/token`).
///
/// Tokens are 32 random bytes from the OS; they are looked up by their keyed digest, never stored or compared as
/// text, so that neither the table nor the timing of a lookup reveals one. At most `capacity` of each kind are kept,
/// the least recently issued forgotten first.
actor SessionStore {
  /// A Google Reader login: its user and action token.
  struct ReaderLogin: Sendable {
    var user: String?
    var actionToken: String
  }

  private var sessions: [[UInt8]: (session: WebSession, issued: Int)] = [:]
  private var readerLogins: [[UInt8]: (login: ReaderLogin, issued: Int)] = [:]
  private var counter = 0
  private let capacity: Int

  /// - Parameter capacity: how many sessions (and Reader logins) are kept at most.
  init(capacity: Int = 1_000) { self.capacity = capacity }

  private func key(_ token: String) -> [UInt8] { Sodium.digest(token, key: Sodium.comparisonKey) }

  /// A new web session for `user`: its cookie token and the session (with a new CSRF token).
  func newSession(user: String?) -> (token: String, session: WebSession) {
    let token = Sodium.randomToken()
    let session = WebSession(csrfToken: Sodium.randomToken(), user: user)
    counter += 1
    sessions[key(token)] = (session, counter)
    if sessions.count > capacity, let oldest = sessions.min(by: { $0.value.issued < $1.value.issued }) {
      sessions[oldest.key] = nil
    }
    return (token, session)
  }

  /// The session of cookie token `token`, or `nil`.
  func session(_ token: String) -> WebSession? { sessions[key(token)]?.session }

  /// Ends the session of `token`.
  func endSession(_ token: String) { sessions[key(token)] = nil }

  /// A new Reader login for `user`: its `Auth` token.
  func newReaderLogin(user: String?) -> String {
    let token = (user.map { $0 + "/" } ?? "") + Sodium.randomToken()
    counter += 1
    readerLogins[key(token)] = (ReaderLogin(user: user, actionToken: Sodium.randomToken(bytes: 20)), counter)
    if readerLogins.count > capacity, let oldest = readerLogins.min(by: { $0.value.issued < $1.value.issued }) {
      readerLogins[oldest.key] = nil
    }
    return token
  }

  /// The Reader login of `Auth` token `token`, or `nil`.
  func readerLogin(_ token: String) -> ReaderLogin? { readerLogins[key(token)]?.login }
}
