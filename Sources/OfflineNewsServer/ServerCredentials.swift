import Foundation

/// The one account of `news serve`: a user name, the argon2id hash of its password (never the password), and the
/// token Miniflux clients send as `X-Auth-Token`. Read from the configuration file's `"serve"` object
/// (docs/CONFIGURATION.md, docs/SERVE.md); `news serve --set-password USER` writes them.
///
/// Checking a password costs an argon2id hash (64 MiB, about 0.1 s): a password that matched once is remembered
/// for the life of the process as a keyed digest of user and password (``Sodium/digest(_:key:)``), so that HTTP
/// Basic on every Miniflux request costs a digest and a constant-time comparison, not a hash each time.
public final class ServerCredentials: Sendable {
  /// The user name (`"user"`), compared exactly.
  public let user: String
  /// The argon2id hash in libsodium's string form (`"passwordHash"`: `$argon2id$v=19$…`).
  public let passwordHash: String
  /// The Miniflux API token (`"apiToken"`), or `nil` for none (HTTP Basic only).
  public let apiToken: String?
  private let verified = VerifiedDigests()

  /// - Parameters: see the properties of the same names.
  public init(user: String, passwordHash: String, apiToken: String? = nil) {
    self.user = user
    self.passwordHash = passwordHash
    self.apiToken = apiToken
  }

  /// A new argon2id hash of `password` (random salt, libsodium's interactive limits), for the configuration.
  ///
  /// - Returns: `nil` when libsodium cannot be initialised or the memory it needs (64 MiB) is refused.
  public static func hash(password: String) -> String? { Sodium.hashPassword(password) }

  /// A new random token (32 bytes from the OS, 64 hex digits): an API token, a session, a Reader `Auth`.
  public static func randomToken() -> String { Sodium.randomToken() }

  /// Whether `user` and `password` are this account's: the user name compared in constant time, the password
  /// against the hash (argon2id), or against the digest of an earlier match.
  public func verify(user: String, password: String) -> Bool {
    let userMatches = Sodium.equal(user, self.user)
    let digest = Sodium.digest(user + "\u{0}" + password, key: Sodium.comparisonKey)
    if verified.contains(digest) { return userMatches }
    guard Sodium.verifyPassword(password, hash: passwordHash), userMatches else { return false }
    verified.insert(digest)
    return true
  }

  /// Whether `token` is the configured API token (constant time); `false` when none is configured.
  public func verify(apiToken token: String) -> Bool {
    guard let apiToken, !apiToken.isEmpty else { return false }
    return Sodium.equal(token, apiToken)
  }

  /// Whether `hash` looks like a libsodium argon2id string (`$argon2id$`…), for the configuration's check.
  public static func isPasswordHash(_ hash: String) -> Bool {
    hash.hasPrefix("$argon2id$") && hash.utf8.count < 128
  }
}

/// The digests of user/password pairs that matched, at most 64 (the oldest forgotten first).
private final class VerifiedDigests: Sendable {
  private let digests = LockedValue<[[UInt8]]>([])

  func contains(_ digest: [UInt8]) -> Bool {
    digests.withLock { list in list.contains { Sodium.equal($0, digest) } }
  }

  func insert(_ digest: [UInt8]) {
    digests.withLock { list in
      list.append(digest)
      if list.count > 64 { list.removeFirst(list.count - 64) }
    }
  }
}

/// A value behind a lock, for the few bits of shared state the front door keeps outside actors.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
