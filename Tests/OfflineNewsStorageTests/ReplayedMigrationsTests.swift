import Foundation
import Synchronization
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Migrations 1–21 are history: replaying them must give every store the schema they gave it when they shipped,
/// by the same statements in the same order, however they are declared (SQL scripts, steps taken only when the
/// store lacks what they add). `Tests/Fixtures/migrations-v21.txt` pins both, as the migrations ran on 2026-12-07
/// (main `47e80f0`, before they were declared as steps): the SQL statements the replay starts
/// (`Connection.setTrace`, `--` comments removed and white space collapsed as ``Schema/collapsed(_:)``; the trace
/// leaves out a statement of a script that a `--` comment opens, as it leaves out trigger programs), then every
/// schema object as `sqlite_master` holds it (type, name, table, then its SQL text as it is, line breaks included),
/// for a new store migrated at once and for one migrated version by version.
@Suite("Migrations 1–21 replay the statements and give the schema they shipped with")
struct ReplayedMigrationsTests {
  /// The last migration pinned; later ones are new, not history.
  static let pinnedVersion = 21

  /// The pinned text: sections `== name`, one line each (statements; schema objects with their SQL indented).
  static func pinned() throws -> String {
    try String(contentsOf: Fixtures.own("migrations-v21.txt"), encoding: .utf8)
  }

  /// What replaying the migrations up to ``pinnedVersion`` on a new file does, in the pinned text's form: in one run
  /// (a new store's way), or `inSteps`, one `Migrator` run per version (an existing store's way).
  static func replay(inSteps: Bool) throws -> String {
    let folder = TemporaryDirectory()
    let db = try Connection(path: folder.path("replayed.sqlite"))
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    let statements = Mutex<[String]>([])
    db.setTrace { sql in statements.withLock { $0.append(Schema.collapsed(Schema.withoutComments(sql))) } }
    let migrations = Schema.migrations.filter { $0.version <= pinnedVersion }
    for last in inSteps ? Array(1...pinnedVersion) : [pinnedVersion] {
      try Migrator(migrations: migrations.filter { $0.version <= last }).migrate(db)
    }
    db.setTrace(nil)
    let objects = try db.makeStatement("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
      .fetchAll { row in
        "\(row.string(0) ?? "") \(row.string(1) ?? "") ON \(row.string(2) ?? "")\n"
          + (row.string(3) ?? "NULL").split(separator: "\n", omittingEmptySubsequences: false)
          .map { "    " + $0 }.joined(separator: "\n")
      }
    let way = inSteps ? "version by version" : "at once"
    return "== statements, \(way)\n" + statements.withLock { $0 }.joined(separator: "\n")
      + "\n== sqlite_master, \(way)\n" + objects.joined(separator: "\n") + "\n"
  }

  /// The first line where `found` and `expected` differ, for the failure message.
  static func firstDifference(_ found: String, _ expected: String) -> String {
    let left = found.split(separator: "\n", omittingEmptySubsequences: false)
    let right = expected.split(separator: "\n", omittingEmptySubsequences: false)
    for index in 0..<max(left.count, right.count) {
      let found = index < left.count ? String(left[index]) : "(end)"
      let expected = index < right.count ? String(right[index]) : "(end)"
      if found != expected { return "line \(index + 1): found \(found)\nexpected \(expected)" }
    }
    return "none"
  }

  @Test("a new store, migrated at once: the pinned statements and sqlite_master")
  func atOnce() throws {
    let pinned = try Self.pinned()
    let end = try #require(pinned.range(of: "== statements, version by version")?.lowerBound)
    let expected = String(pinned[..<end])
    let found = try Self.replay(inSteps: false)
    #expect(found == expected, "\(Self.firstDifference(found, expected))")
  }

  @Test("a store migrated version by version: the pinned statements and sqlite_master")
  func versionByVersion() throws {
    let pinned = try Self.pinned()
    let start = try #require(pinned.range(of: "== statements, version by version")?.lowerBound)
    let expected = String(pinned[start...])
    let found = try Self.replay(inSteps: true)
    #expect(found == expected, "\(Self.firstDifference(found, expected))")
  }
}
