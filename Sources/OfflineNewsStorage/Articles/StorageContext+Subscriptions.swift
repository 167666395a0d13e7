import Foundation
import OfflineNewsModel

/// One row of the store's subscription list (`subscription`, schema version 14): what `NewsRepository`'s
/// subscription calls read and write as a `NewsSource`.
package struct StoredSubscription: Sendable, Hashable {
  /// Unique without regard to ASCII case.
  package var name: String
  /// The source's URL as subscribed (unique).
  package var url: String
  package var title: String?
  /// Outermost first; `[]` at the top level.
  package var folder: [String]
  package var homePage: String?
  /// A `CachePolicy` raw value.
  package var policy: String?
  /// Seconds.
  package var maxAge: Double?
  package var fullText: Bool

  package init(
    name: String, url: String, title: String? = nil, folder: [String] = [], homePage: String? = nil,
    policy: String? = nil, maxAge: Double? = nil, fullText: Bool = false
  ) {
    self.name = name
    self.url = url
    self.title = title
    self.folder = folder
    self.homePage = homePage
    self.policy = policy
    self.maxAge = maxAge
    self.fullText = fullText
  }
}

extension StorageContext {
  private static let subscriptionColumns = "name, url, title, folder, homePage, policy, maxAge, fullText"
  /// Adds a subscription: the values of ``values(of:)``, then `subscribedAt`.
  private static let insertSubscription =
    "INSERT INTO subscription (\(subscriptionColumns), subscribedAt) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"

  /// The subscriptions, in the order they were made.
  ///
  /// - Throws: ``StorageError``.
  package func subscriptions() async throws(StorageError) -> [StoredSubscription] {
    try await read { db in
      // A store older than version 14 that was only read has no table yet: no subscriptions.
      guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'subscription'") == 1 else { return [] }
      return try db.cachedStatement("SELECT \(Self.subscriptionColumns) FROM subscription ORDER BY position")
        .fetchAll { row in
          StoredSubscription(
            name: row.string(0) ?? "", url: row.string(1) ?? "", title: row.string(2),
            folder: Self.folder(row.string(3)), homePage: row.string(4), policy: row.string(5), maxAge: row.double(6),
            fullText: (row.int64(7) ?? 0) != 0)
        }
    }
  }

  /// Adds `subscription` at the end of the list, or — when `replacing` names a subscription (any case) — writes it
  /// in that one's place, keeping its position (a rename, a move to another folder). Names are unique without
  /// regard to case and URLs exactly; the caller checks them first (``subscriptions()``), the constraint is the
  /// last word.
  ///
  /// Renaming also moves the articles recorded under the old name (`article.source`) to the new one, in the same
  /// transaction, so that the source keeps its history.
  ///
  /// - Throws: ``StorageError`` (`constraint` when the name or URL is another subscription's).
  package func saveSubscription(_ subscription: StoredSubscription, replacing old: String? = nil, at now: Timestamp)
    async throws(StorageError)
  {
    try await write { db in
      try db.inTransaction {
        let values = Self.values(of: subscription)
        if let old {
          let previous = try db.cachedStatement("SELECT name FROM subscription WHERE name = ?1").fetchOne(
            [.text(old)]
          ) { $0.string(0) }
          try db.execute(
            """
            UPDATE subscription SET name = ?1, url = ?2, title = ?3, folder = ?4, homePage = ?5, policy = ?6,
              maxAge = ?7, fullText = ?8 WHERE name = ?9
            """, values + [.text(old)])
          if let previous = previous ?? nil, previous != subscription.name {
            try Self.moveArticles(db, from: previous, to: subscription.name)
          }
        } else {
          try db.execute(
            Self.insertSubscription,
            values + [.integer(now.millisecondsSince1970)])
        }
      }
    }
  }

  /// Adds `subscriptions` at the end of the list, in order, in one transaction (names unique without regard to case
  /// and URLs exactly: the caller checks them first, the constraint is the last guard).
  ///
  /// - Throws: ``StorageError`` (`constraint` when a name or URL is taken; nothing is added then).
  package func saveSubscriptions(_ subscriptions: [StoredSubscription], at now: Timestamp) async throws(StorageError) {
    guard !subscriptions.isEmpty else { return }
    try await write { db in
      try db.inTransaction {
        for subscription in subscriptions {
          try db.execute(
            Self.insertSubscription,
            Self.values(of: subscription) + [.integer(now.millisecondsSince1970)])
        }
      }
    }
  }

  /// Moves the articles recorded under the source `old` (`article.source`) to `new`: what a rename of a source kept
  /// outside the store (a configuration file) does to the cache, so that the source keeps its history.
  ///
  /// - Returns: how many articles moved.
  /// - Throws: ``StorageError``.
  @discardableResult
  package func renameArticleSource(from old: String, to new: String) async throws(StorageError) -> Int {
    try await write { db in
      try db.inTransaction { try Self.moveArticles(db, from: old, to: new) }
    }
  }

  /// Gives each subscription the articles its feed saved under a name no subscription has any more: for each query
  /// of `owners` (a query's cache key → the name of the subscription reading it now) whose fetch log says its last
  /// save was under another name (`query_fetch.source`, migration 17) that is not in `live` (every subscription's
  /// name), that name's articles move to the owner, as a rename does (``renameArticleSource(from:to:)``). What a
  /// subscription renamed outside the library (its configuration file edited by hand), or removed and added again
  /// under another name, needs to keep its history, reading state and bookmarks where every front end looks for them.
  /// A name still in `live` is another subscription's and is left alone.
  ///
  /// - Returns: each move, in the fetch log's order of queries: the old name, the new one, how many articles moved.
  /// - Throws: ``StorageError``.
  package func adoptArticles(of owners: [String: String], live: Set<String>) async throws(StorageError)
    -> [(from: String, to: String, articles: Int)]
  {
    guard !owners.isEmpty else { return [] }
    return try await write { db in
      try db.inTransaction {
        let logged = try db.makeStatement(
          "SELECT query, source FROM query_fetch WHERE source IS NOT NULL ORDER BY query"
        ).fetchAll([], { ($0.string(0) ?? "", $0.string(1) ?? "") })
        var moves: [(from: String, to: String, articles: Int)] = []
        for (query, previous) in logged {
          guard let owner = owners[query], owner != previous, !live.contains(previous) else { continue }
          moves.append((previous, owner, try Self.moveArticles(db, from: previous, to: owner)))
        }
        return moves
      }
    }
  }

  /// Moves the articles recorded under `old` to `new`, and the fetch log's record of the name its queries saved under
  /// (migration 17's `query_fetch.source`), so that their counts of articles under another name stay true: the
  /// rows that were under `old` are under `new` now, as the queries' next saves will be. A count can only have
  /// fallen (rows of `new` in a list of `old`'s), and `0` stays exact.
  ///
  /// - Returns: how many articles moved.
  @discardableResult
  private static func moveArticles(_ db: Connection, from old: String, to new: String) throws -> Int {
    // A name that has saved under itself before is a source of its own (a subscription re-linked onto an address a
    // `news fetch --url` read once takes that URL's articles): it keeps its identity; a new name is a rename.
    let newHasHistory =
      try db.cachedStatement("SELECT EXISTS (SELECT 1 FROM query_fetch WHERE source = ?1)").fetchOne([.text(new)]) {
        $0.int64(0) == 1
      } ?? false
    try db.execute("UPDATE article SET source = ?1 WHERE source = ?2", [.text(new), .text(old)])
    let moved = db.changes
    try db.execute("UPDATE query_fetch SET source = ?1 WHERE source = ?2", [.text(new), .text(old)])
    if !newHasHistory { try moveIdentity(db, from: old, to: new) }
    return moved
  }

  /// Gives `new` the identity of `old` (``sourceIdentities()``, migration 23), and `old` one of its own that no
  /// source has had (its name, a separator no name holds, and the identity it gave away), so that a later source
  /// named `old` is not taken for the renamed one. A change of case only is no rename of the identity (names are
  /// unique without regard to case, and the identities derived from them ignore it).
  private static func moveIdentity(_ db: Connection, from old: String, to new: String) throws {
    guard old.lowercased() != new.lowercased() else { return }
    let identity =
      try db.cachedStatement("SELECT identity FROM source_identity WHERE name = ?1").fetchOne([.text(old)]) {
        $0.string(0)
      } ?? nil
    let kept = identity ?? old
    let upsert = try db.cachedStatement(
      "INSERT INTO source_identity (name, identity) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET identity = ?2")
    try upsert.execute([.text(new), .text(kept)])
    try upsert.execute([.text(old), .text(old + Self.retiredIdentitySeparator + kept)])
  }

  /// What joins a retired name to the identity it gave away: U+001F (unit separator), a control character, which
  /// the library never leaves in a name it gives (it makes each run of them one space).
  private static let retiredIdentitySeparator = "\u{1F}"

  /// The identity of each source renamed since migration 23 (and of each name it was renamed from), by name: the
  /// name the source was first recorded under, kept through renames (migration 23). A source not in the map is its
  /// own identity. Keys are as stored; compare them without regard to case.
  ///
  /// - Returns: `[:]` for a store older than version 23 that was only read.
  /// - Throws: ``StorageError``.
  package func sourceIdentities() async throws(StorageError) -> [String: String] {
    try await read { db in
      guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'source_identity'") == 1 else {
        return [:]
      }
      let rows = try db.cachedStatement("SELECT name, identity FROM source_identity").fetchAll([]) {
        ($0.string(0) ?? "", $0.string(1) ?? "")
      }
      return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }
  }

  /// The bound values of a row, in ``subscriptionColumns``' order.
  private static func values(of subscription: StoredSubscription) -> [DatabaseValue] {
    [
      .text(subscription.name), .text(subscription.url), subscription.title.map(DatabaseValue.text) ?? .null,
      .text(folderText(subscription.folder)), subscription.homePage.map(DatabaseValue.text) ?? .null,
      subscription.policy.map(DatabaseValue.text) ?? .null, subscription.maxAge.map(DatabaseValue.real) ?? .null,
      .integer(subscription.fullText ? 1 : 0),
    ]
  }

  /// Removes the subscription named `name` (any case); its articles stay cached.
  ///
  /// - Returns: whether there was one.
  /// - Throws: ``StorageError``.
  package func deleteSubscription(named name: String) async throws(StorageError) -> Bool {
    try await write { db in
      try db.execute("DELETE FROM subscription WHERE name = ?1", [.text(name)])
      return db.changes > 0
    }
  }

  /// The folders kept while no subscription is filed in them (`subscription_folder`, schema 19), in the order kept.
  ///
  /// - Throws: ``StorageError``.
  package func keptSubscriptionFolders() async throws(StorageError) -> [[String]] {
    try await read { db in
      // A store older than version 19 that was only read has no table yet: no kept folder.
      guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'subscription_folder'") == 1 else {
        return []
      }
      return try db.cachedStatement("SELECT path FROM subscription_folder ORDER BY keptAt, rowid").fetchAll {
        Self.folder($0.string(0))
      }
    }
  }

  /// Keeps `folder` (outermost first; not `[]`) in the list's folders, or stops keeping it; keeping it twice keeps
  /// it once.
  ///
  /// - Throws: ``StorageError``.
  package func setSubscriptionFolder(_ folder: [String], kept: Bool, at now: Timestamp) async throws(StorageError) {
    guard !folder.isEmpty else { return }
    try await write { db in
      if kept {
        try db.execute(
          "INSERT INTO subscription_folder (path, keptAt) VALUES (?1, ?2) ON CONFLICT(path) DO NOTHING",
          [.text(Self.folderText(folder)), .integer(now.millisecondsSince1970)])
      } else {
        try db.execute("DELETE FROM subscription_folder WHERE path = ?1", [.text(Self.folderText(folder))])
      }
    }
  }

  private static func folderText(_ folder: [String]) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: folder), let text = String(data: data, encoding: .utf8)
    else { return "[]" }
    return text
  }

  private static func folder(_ text: String?) -> [String] {
    guard let data = text?.data(using: .utf8), let names = try? JSONSerialization.jsonObject(with: data) as? [String]
    else { return [] }
    return names
  }
}
