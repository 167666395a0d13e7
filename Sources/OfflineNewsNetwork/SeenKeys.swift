/// The keys a stream has seen so far, kept as 128-bit digests (16 bytes each, whatever the key's length) instead of
/// the keys themselves, so that telling a repeated URL in a million-record file costs about 32 MB rather than the
/// hundreds a set of strings would hold.
///
/// For example:
/// ```swift
/// var seen = SeenKeys()
/// seen.insert("https://example.com/a")  // true: first time
/// seen.insert("https://example.com/a")  // false: seen before
/// ```
///
/// The digest is two SipHash values of the key's UTF-8 bytes (Swift's `Hasher`, keyed at random per process, each
/// with its own domain byte): two distinct keys are taken for one with a probability of about n² / 2¹²⁹ — for a
/// billion keys, below 10⁻²⁰. Only a report depends on it (a record named as a repeat); what is saved does not.
struct SeenKeys {
  private struct Digest: Hashable {
    let first: UInt64
    let second: UInt64
  }

  private var digests: Set<Digest> = []

  /// The number of distinct keys seen.
  var count: Int { digests.count }

  /// Records `key`; returns whether it was not seen before.
  @discardableResult
  mutating func insert(_ key: String) -> Bool {
    var key = key
    let digest = key.withUTF8 { bytes in
      Digest(first: Self.hash(bytes, domain: 0), second: Self.hash(bytes, domain: 1))
    }
    return digests.insert(digest).inserted
  }

  private static func hash(_ bytes: UnsafeBufferPointer<UInt8>, domain: UInt8) -> UInt64 {
    var hasher = Hasher()
    hasher.combine(domain)
    hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
    return UInt64(bitPattern: Int64(hasher.finalize()))
  }
}
