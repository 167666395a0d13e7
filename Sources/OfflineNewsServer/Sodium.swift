import CSodium
import Foundation

/// The few libsodium calls the front door needs, behind Swift types: argon2id password hashes
/// (`crypto_pwhash_str`, `crypto_pwhash_str_verify`), random tokens from the OS (`randombytes_buf`), keyed BLAKE2b
/// digests (`crypto_generichash`) and constant-time comparison (`sodium_memcmp`). `sodium_init` runs once, before
/// the first of them.
enum Sodium {
  /// Whether `sodium_init` succeeded (0 the first time, 1 after; -1 when the library cannot be used).
  static let ready: Bool = sodium_init() >= 0

  /// A new argon2id hash of `password` in libsodium's string form (`$argon2id$v=19$m=65536,t=2,p=1$…`), with a
  /// random salt and the "interactive" limits (64 MiB, 2 passes: about 0.1 s here); `nil` when out of memory.
  static func hashPassword(_ password: String) -> String? {
    guard ready else { return nil }
    var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
    let bytes = Array(password.utf8CString.dropLast())
    let status = crypto_pwhash_str(
      &out, bytes, UInt64(bytes.count), UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
      Int(crypto_pwhash_MEMLIMIT_INTERACTIVE))
    guard status == 0 else { return nil }
    return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `password` matches `hash` (a string `crypto_pwhash_str` wrote); `false` for a malformed hash.
  static func verifyPassword(_ password: String, hash: String) -> Bool {
    guard ready, hash.utf8.count < Int(crypto_pwhash_STRBYTES) else { return false }
    var stored = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
    for (index, byte) in hash.utf8.enumerated() { stored[index] = CChar(bitPattern: byte) }
    let bytes = Array(password.utf8CString.dropLast())
    return crypto_pwhash_str_verify(stored, bytes, UInt64(bytes.count)) == 0
  }

  /// `count` random bytes from the OS (`randombytes_buf`), as lower-case hex (2 × `count` characters).
  static func randomToken(bytes count: Int = 32) -> String {
    _ = ready
    var buffer = [UInt8](repeating: 0, count: count)
    randombytes_buf(&buffer, count)
    return hex(buffer)
  }

  /// The keyed BLAKE2b digest (32 bytes) of `text` under `key` (at least 16 bytes): what the front door keeps of a
  /// token or a password it has checked, never the token itself.
  static func digest(_ text: String, key: [UInt8]) -> [UInt8] {
    _ = ready
    var out = [UInt8](repeating: 0, count: 32)
    let input = Array(text.utf8)
    _ = crypto_generichash(&out, out.count, input, UInt64(input.count), key, key.count)
    return out
  }

  /// Whether `a` and `b` are the same bytes, in time that depends only on their length (`sodium_memcmp`); `false`
  /// for different lengths.
  static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count, !a.isEmpty else { return false }
    return sodium_memcmp(a, b, a.count) == 0
  }

  /// Whether the texts are equal, compared as keyed digests in constant time (so that their lengths do not show).
  static func equal(_ a: String, _ b: String) -> Bool {
    equal(digest(a, key: comparisonKey), digest(b, key: comparisonKey))
  }

  /// A random key for this process's comparisons and digests.
  static let comparisonKey: [UInt8] = {
    _ = ready
    var key = [UInt8](repeating: 0, count: 32)
    randombytes_buf(&key, key.count)
    return key
  }()

  /// `bytes` as lower-case hex.
  static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
