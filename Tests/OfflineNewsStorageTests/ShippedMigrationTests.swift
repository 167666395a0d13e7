import Testing

@testable import OfflineNewsStorage

/// A shipped migration's SQL is history: stores at every older version run it as it shipped. Migrations 4, 7, 9 and
/// 11 build their search-index statements from shared definitions (`Migration+SearchText.swift`), so an edit made
/// there for a new migration must not change an old one. Each script is pinned here by the FNV-1a 64 hash of its text
/// with white space collapsed (the form ``Schema`` compares); the hashes were taken from the scripts as they shipped,
/// written out in full.
@Suite("Shipped migrations keep their SQL")
struct ShippedMigrationTests {
  static let pinned: [Int: UInt64] = [
    1: 0x103f_e77d_ae0e_2534,
    2: 0xf528_e686_c703_7bfb,
    3: 0x683a_4145_c611_d82c,
    4: 0x0d76_3ca1_b97a_9228,
    5: 0x57d5_0e5b_f8d8_5105,
    6: 0x8e51_b813_d8a4_8380,
    7: 0xdf70_58a0_aff9_4f29,
    8: 0x23c5_be49_3448_43c4,
    9: 0xb962_6d30_670b_2c6f,
    10: 0x22eb_5770_d5ff_d258,
    11: 0x9a84_16d4_389a_f93c,
    12: 0x199e_7bca_63ea_84f2,
    13: 0xd90a_39a7_3f8b_98a8,
    14: 0x40f1_968a_2a12_40c4,
    15: 0xcbf2_9ce4_8422_2325,
    16: 0xcbf2_9ce4_8422_2325,
    17: 0xcbf2_9ce4_8422_2325,
    18: 0xcbf2_9ce4_8422_2325,
    19: 0x0862_90f7_3977_98b2,
    20: 0xcbf2_9ce4_8422_2325,
    21: 0xcbf2_9ce4_8422_2325,
    22: 0xcbf2_9ce4_8422_2325,
    23: 0x2597_9573_2d08_d25c,
    24: 0xcbf2_9ce4_8422_2325,
  ]

  static func fnv1a64(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return hash
  }

  /// The SQL of the steps of each migration that has some (``Migration/Step/sql(_:)`` and
  /// ``Migration/Step/createIndex(_:)``, in order, joined by a line break): pinned like ``pinned``, the hashes taken
  /// at migration 24 from the steps as they are (unchanged since they shipped, as far as the history shows).
  static let pinnedSteps: [Int: UInt64] = [
    15: 0x8228_6e25_7972_0a4b,
    17: 0x6aa7_453f_89ab_db1f,
    18: 0xedea_8f52_f587_b12e,
    20: 0x9749_e96b_f3c1_5303,
    24: 0xdc53_069f_ed07_2e36,
  ]

  /// The text of `migration`'s steps that ``pinnedSteps`` hashes, or `nil` when it has none.
  static func stepsText(_ migration: Migration) -> String? {
    let steps = migration.scripts.dropFirst()
    return steps.isEmpty ? nil : Schema.collapsed(steps.joined(separator: "\n"))
  }

  @Test("every migration's steps, white space collapsed, are the ones that shipped")
  func stepsAreUnchanged() {
    for migration in Schema.migrations {
      let hash = Self.stepsText(migration).map(Self.fnv1a64)
      #expect(
        hash == Self.pinnedSteps[migration.version],
        "migration \(migration.version)'s steps changed: \(hash.map { String($0, radix: 16) } ?? "none")")
    }
  }

  @Test("every migration's script, white space collapsed, is the one that shipped")
  func scriptsAreUnchanged() {
    #expect(Schema.migrations.map(\.version) == Array(Self.pinned.keys).sorted())
    for migration in Schema.migrations {
      let hash = Self.fnv1a64(Schema.collapsed(migration.sql))
      #expect(hash == Self.pinned[migration.version], "migration \(migration.version) changed")
    }
  }

  @Test("the view and triggers the store ends with are built from the shared definitions")
  func finalSearchDefinitions() {
    let view = Schema.collapsed(Migration.searchTextView)
    #expect(view.hasPrefix("CREATE VIEW article_search_text (docid, title, summary, content, author, sourceName) AS"))
    #expect(
      view.contains(
        "replace(replace(replace(replace(replace(replace(coalesce(fullText, contentText, content), char(173), ''), "
          + "char(8203), ''), char(8204), ''), char(8205), ''), char(8288), ''), char(65279), '')"))
    #expect(
      Schema.triggerDefinitions["article_fts_after_update"]?.hasPrefix(
        "CREATE TRIGGER article_fts_after_update AFTER UPDATE OF title, summary, content, author, sourceName, "
          + "fullText, summaryText, contentText, searchFolds ON article WHEN old.title IS NOT new.title") == true)
  }
}
