/// The rows of a first import whose key index is set aside (``ArticleWriter``, migration 12's
/// `article_by_url`), by key: what the index would answer while it is not there — whether a URL came in an earlier
/// batch of the save and at which rowid.
///
/// One hash of each key's UTF-8 bytes and its rowid (about 40 bytes a row in a Swift dictionary: 40 MB at a
/// million articles, against the 100 MB the keys' text would take). Two keys of one hash are told apart by reading
/// the stored key of the first (`lookup`'s `storedKey`, a rowid look-up), the second kept by its bytes: the answer
/// is exact, as the unique index's (SQLite compares keys byte by byte, `BINARY` collation), and costs a read only
/// when a key comes again or two hashes meet.
struct FirstImportKeys {
  /// The rowid of the first key of each hash.
  private var rowids: [Int: Int64] = [:]
  /// Keys whose hash an earlier key has, by their bytes.
  private var collided: [[UInt8]: Int64] = [:]
  /// The hash of a key: ``bytesHash(_:)``, or one with collisions in tests.
  private let hash: @Sendable (String) -> Int

  init(hash: @escaping @Sendable (String) -> Int = FirstImportKeys.bytesHash) { self.hash = hash }

  /// Room for `count` keys.
  mutating func reserve(_ count: Int) { rowids.reserveCapacity(count) }

  /// The hash `key` is recorded by: computed once by a caller that looks a key up and then records it.
  func hashValue(of key: String) -> Int { hash(key) }

  /// The rowid of `key` if it was recorded; `storedKey` reads the key of a rowid (called only when a recorded key
  /// has `key`'s hash). `hashed` is ``hashValue(of:)`` of `key` when the caller has it.
  func rowid(of key: String, hash hashed: Int? = nil, storedKey: (Int64) throws -> String?) rethrows -> Int64? {
    guard let rowid = rowids[hashed ?? hash(key)] else { return nil }
    if let stored = try storedKey(rowid), stored.utf8.elementsEqual(key.utf8) { return rowid }
    return collided[Array(key.utf8)]
  }

  /// Records a key not recorded before (``rowid(of:hash:storedKey:)`` said `nil`) at `rowid`; `hashed` is
  /// ``hashValue(of:)`` of `key` when the caller has it.
  mutating func record(_ key: String, hash hashed: Int? = nil, rowid: Int64) {
    let hashed = hashed ?? hash(key)
    if rowids[hashed] == nil {
      rowids[hashed] = rowid
    } else {
      collided[Array(key.utf8)] = rowid
    }
  }

  /// A hash of the key's bytes (`String`'s own hash would equate canonically equivalent keys, which SQLite keeps
  /// apart).
  static func bytesHash(_ key: String) -> Int {
    var hasher = Hasher()
    let hashed: Void? = key.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    if hashed == nil { Array(key.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    return hasher.finalize()
  }
}
