import Foundation

/// FTS5's merging held off for the length of one bulk save, and done at its end in bounded steps.
///
/// FTS5 keeps its index as segments in levels and merges a level once it holds `automerge` segments (4 by default),
/// inside the statement that wrote the last one (<https://www.sqlite.org/fts5.html#the_automerge_configuration_option>).
/// A save writes a segment at the start of every statement that follows one that gave the index new text (FTS5
/// writes its pending terms out at each statement's savepoint), so a re-import whose changed rows are scattered
/// over 200 upserts writes 200 tiny segments; merged as they come, every 16th of them also rewrote the index's one
/// large segment when it sat on level 1, as a first import leaves it (a 100k re-import with 775 changed rows:
/// 55,192 page writes, 2.4 s, against 11,370 and 1.8 s when it sat on level 3; docs/PERFORMANCE.md).
///
/// While paused, `automerge` is 0 and `crisismerge` 1999 (FTS5's limit of 2,000 segments less one), so no merge runs
/// inside a statement, whose statement journal would then hold every page the merge rewrites. Between statements,
/// ``mergeIfOverLimit()`` merges when the index holds ``SearchIndexBuild/segmentLimit`` segments or more; at the end,
/// ``finish(intoOne:)`` merges with FTS5 `merge` statements of at most ``mergePages`` pages each — positive, the
/// segments of the fullest level (the save's tiny segments become one), or negative, every segment into one (the
/// incremental form of `optimize`) — and gives the settings back as they were stored (FTS5's defaults when none
/// was). Everything is written in the save's transaction: a failed save rolls it back.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#the_merge_command>,
/// <https://www.sqlite.org/fts5.html#the_crisismerge_configuration_option>; `hashsize` is read by FTS5's
/// `fts5_config.c` like the documented settings
struct SearchIndexMergePause {
  /// Pages one FTS5 `merge` statement may write.
  static let mergePages: Int64 = 2_000

  private let db: Connection
  private let segmentLimit: Int
  /// FTS5's settings as they were stored before the save (`nil`: none was, FTS5's default applied).
  private let settings: [(key: String, stored: Int64?, fallback: Int64)]

  /// Pauses merging; with `hashSize`, also sets FTS5's `hashsize` (bytes of pending terms per segment) for the save.
  ///
  /// - Throws: ``SQLiteError`` from reading or writing FTS5's settings (`article_fts_config`).
  init(db: Connection, segmentLimit: Int, hashSize: Int64? = nil) throws {
    func stored(_ key: String) throws -> Int64? {
      try db.makeStatement("SELECT v FROM article_fts_config WHERE k = ?1").fetchOne([.text(key)]) {
        $0.int64(0)
      } ?? nil
    }
    var settings = [
      (key: "automerge", stored: try stored("automerge"), fallback: Int64(4)),
      (key: "crisismerge", stored: try stored("crisismerge"), fallback: Int64(16)),
      (key: "usermerge", stored: try stored("usermerge"), fallback: Int64(4)),
    ]
    var values: [(String, Int64)] = [("automerge", 0), ("crisismerge", 1999), ("usermerge", 16)]
    if let hashSize {
      settings.append((key: "hashsize", stored: try stored("hashsize"), fallback: 1 << 20))
      values.append(("hashsize", hashSize))
    }
    for (key, value) in values { try Self.set(key, value, db) }
    self.db = db
    self.segmentLimit = segmentLimit
    self.settings = settings
  }

  /// Merges a level at a time while the index holds ``SearchIndexBuild/segmentLimit`` segments or more.
  ///
  /// - Throws: ``SQLiteError``.
  func mergeIfOverLimit() throws {
    if try segments() >= segmentLimit { try merge(pages: Self.mergePages) }
  }

  /// Merges (every segment into one with `intoOne`, else the fullest level while one holds 16 or more: the pause's
  /// `usermerge`) and gives FTS5's settings back.
  ///
  /// - Throws: ``SQLiteError``.
  func finish(intoOne: Bool) throws {
    try merge(pages: intoOne ? -Self.mergePages : Self.mergePages)
    for setting in settings { try Self.set(setting.key, setting.stored ?? setting.fallback, db) }
  }

  /// The index's segments: each has its rows in `article_fts_idx`, FTS5's index of segment leaves.
  private func segments() throws -> Int {
    Int(try db.scalarInt("SELECT count(DISTINCT segid) FROM article_fts_idx") ?? 0)
  }

  /// Runs FTS5 `merge` statements of `pages` until one does no work: FTS5 then changes fewer than two rows
  /// (<https://www.sqlite.org/fts5.html#the_merge_command>).
  private func merge(pages: Int64) throws {
    let statement = try db.cachedStatement("INSERT INTO article_fts (article_fts, rank) VALUES ('merge', ?1)")
    while true {
      let before = db.totalChanges
      try statement.execute([.integer(pages)])
      if db.totalChanges - before < 2 { return }
    }
  }

  /// Writes one FTS5 setting.
  private static func set(_ key: String, _ value: Int64, _ db: Connection) throws {
    try db.execute("INSERT INTO article_fts (article_fts, rank) VALUES (?1, ?2)", [.text(key), .integer(value)])
  }
}
