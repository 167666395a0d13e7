import Testing

@testable import OfflineNewsStorage

/// The keys a first import records while its key index is set aside answer as the unique index would: by the
/// keys' bytes, whatever their hashes.
@Suite("FirstImportKeys: a first import's keys without the key index")
struct FirstImportKeysTests {
  /// Records `keys` at rowids 1, 2, 3… (a key already recorded is not recorded again, as the writer does) and
  /// returns, for each of `probes`, the rowid found.
  private func lookUp(_ keys: [String], _ probes: [String], hash: @escaping @Sendable (String) -> Int) -> [Int64?] {
    var recorded = FirstImportKeys(hash: hash)
    var stored: [Int64: String] = [:]
    for key in keys where recorded.rowid(of: key, storedKey: { stored[$0] }) == nil {
      let rowid = Int64(stored.count + 1)
      stored[rowid] = key
      recorded.record(key, rowid: rowid)
    }
    return probes.map { probe in recorded.rowid(of: probe, storedKey: { stored[$0] }) }
  }

  @Test("every key is found at its rowid and no other, with the real hash and with one that makes every hash equal")
  func exactWhateverTheHash() {
    let keys = (0..<200).map { "https://example.com/\($0)" }
    let repeated = keys + keys.reversed()
    let probes = keys + ["https://example.com/200", "https://example.com/", ""]
    let expected: [Int64?] = (1...200).map { Int64($0) } + [nil, nil, nil]
    #expect(lookUp(repeated, probes, hash: FirstImportKeys.bytesHash) == expected)
    #expect(lookUp(repeated, probes, hash: { _ in 42 }) == expected)
    #expect(lookUp(repeated, probes, hash: { $0.count }) == expected)
  }

  @Test("canonically equivalent keys are two keys, as SQLite's BINARY comparison keeps them")
  func bytesNotCharacters() {
    let composed = "https://example.com/caf\u{E9}"
    let decomposed = "https://example.com/cafe\u{301}"
    #expect(composed == decomposed, "Swift compares characters")
    #expect(FirstImportKeys.bytesHash(composed) != FirstImportKeys.bytesHash(decomposed))
    #expect(lookUp([composed, decomposed], [composed, decomposed], hash: FirstImportKeys.bytesHash) == [1, 2])
    #expect(lookUp([composed, decomposed], [composed, decomposed], hash: { _ in 0 }) == [1, 2])
  }
}
