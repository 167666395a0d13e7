import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// newsboat's cache (`cache.db`: SQLite, newsboat 2.x, tables `rss_feed` and `rss_item`), read for what a person
/// did in newsboat: the articles read and the articles flagged. Opened read-only; newsboat may be running.
///
/// newsboat keeps an item's `guid` (the feed's `guid`/`id`, else its link), its `url` (the link), its `feedurl`
/// (the feed's URL as its urls file has it), `unread` (0 or 1), `flags` (letters `A`–`Z`, `a`–`z`, chosen by the
/// person: newsboat's manual, "Flagging Articles") and `deleted` (1: deleted in newsboat, kept only so that a reload
/// does not bring it back). Flags have no fixed meaning; any flag is read as a bookmark here, the one mark an
/// article has besides read.
///
/// For example:
/// ```swift
/// let cache = try NewsboatCache.read(path: "/home/me/.local/share/newsboat/cache.db")
/// let result = try await repository.importReadingState(of: cache)
/// print(result.markedRead, result.notFound)
/// ```
public struct NewsboatCache: Sendable {
  /// One article of newsboat's cache that it read or flagged.
  public struct Item: Sendable, Hashable {
    /// newsboat's `guid`: the item's own `guid`/`id`, else its link.
    public var guid: String
    /// The item's link (`url`), as the feed gave it; may be empty.
    public var link: String
    /// The feed's URL (`feedurl`).
    public var feedURL: String
    /// The feed's home page (`rss_feed.url`), when newsboat has it.
    public var feedHomePage: String?
    /// Whether it is read in newsboat (`unread = 0`).
    public var isRead: Bool
    /// Its flags (`flags`), `""` for none.
    public var flags: String

    /// Whether it is flagged (with any letter).
    public var isFlagged: Bool { !flags.isEmpty }

    /// The keys this item has here, in the order to try: its guid scoped to its feed (the key of an item without a
    /// link or whose link it shares, and the ``Article/itemID`` of one keyed by its link), then its canonical link
    /// (``ArticleIdentity``'s first rule). The guid first: links that differ only in their fragment (Scripting
    /// News's posts of a day, `26.html#a080605`) are one canonical link, which may be another post's key.
    var candidateKeys: [String] {
      var keys: [String] = []
      // Also when the guid is the link (a permalink guid): newsboat then shows the guid as the link.
      if !guid.isEmpty { keys.append(ArticleIdentity.scoped(scope, id: guid).absoluteString) }
      if let url = URL(string: link), url.isWebURL {
        keys.append(ArticleIdentity.linked(url).absoluteString)
      }
      return keys
    }

    /// The scope of its feed's items that have no key of their own (``ArticleIdentity/feedScope(homePage:origin:)``).
    var scope: String {
      ArticleIdentity.feedScope(homePage: feedHomePage.flatMap { URL(string: $0) }, origin: feedURL)
    }

    /// How the keys of its feed's items keyed in its scope begin (`news-item:SCOPE/`).
    var scopePrefix: String { ArticleIdentity.scoped(scope, id: "").absoluteString }
  }

  /// The items read or flagged in newsboat and not deleted there, in newsboat's order (`rss_item.id`).
  public var items: [Item]
  /// How many items newsboat has deleted (not imported).
  public var deleted: Int

  /// The first 16 bytes of every SQLite 3 database file ("SQLite format 3" and a NUL:
  /// <https://www.sqlite.org/fileformat.html#the_database_header>).
  public static let sqliteHeader = Data("SQLite format 3\u{0}".utf8)

  /// Whether `prefix` (a file's first bytes) starts a SQLite database: a newsboat cache is one (``read(path:)``
  /// tells whether it is newsboat's).
  public static func isSQLite(_ prefix: Data) -> Bool { prefix.starts(with: sqliteHeader) }

  /// Reads the read and flagged items of newsboat's cache at `path`, read-only.
  ///
  /// - Throws: ``NewsboatCacheError``: the file cannot be opened or read as SQLite, or has no `rss_item` table with
  ///   newsboat's columns.
  public static func read(path: String) throws(NewsboatCacheError) -> NewsboatCache {
    do {
      let db = try Connection(path: path, readOnly: true)
      let columns = Set(try db.makeStatement("PRAGMA table_info(rss_item)").fetchAll { $0.string(1) ?? "" })
      let needed: Set = ["guid", "url", "feedurl", "unread", "flags", "deleted"]
      guard columns.isSuperset(of: needed) else {
        let missing = needed.subtracting(columns).sorted().joined(separator: ", ")
        throw NewsboatCacheError.notNewsboatCache(
          path: path,
          reason: columns.isEmpty ? "no rss_item table" : "rss_item has no column \(missing)")
      }
      let hasFeeds =
        try db.scalarInt(
          "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'rss_feed'") == 1
      let home = hasFeeds ? "(SELECT f.url FROM rss_feed AS f WHERE f.rssurl = i.feedurl)" : "NULL"
      let items = try db.makeStatement(
        """
        SELECT i.guid, i.url, i.feedurl, \(home), i.unread, coalesce(i.flags, '') FROM rss_item AS i
        WHERE i.deleted = 0 AND (i.unread = 0 OR coalesce(i.flags, '') <> '') ORDER BY i.id
        """
      ).fetchAll { row in
        Item(
          guid: row.string(0) ?? "", link: row.string(1) ?? "", feedURL: row.string(2) ?? "",
          feedHomePage: row.string(3).flatMap { $0.isEmpty ? nil : $0 }, isRead: row.int64(4) == 0,
          flags: row.string(5) ?? "")
      }
      let deleted = Int(try db.scalarInt("SELECT count(*) FROM rss_item WHERE deleted <> 0") ?? 0)
      return NewsboatCache(items: items, deleted: deleted)
    } catch let error as NewsboatCacheError {
      throw error
    } catch {
      throw .unreadable(path: path, reason: "\(error)")
    }
  }
}

/// Why newsboat's cache could not be read.
public enum NewsboatCacheError: Error, Sendable, Hashable, CustomStringConvertible {
  /// SQLite could not open or read the file (the reason is SQLite's).
  case unreadable(path: String, reason: String)
  /// A SQLite database, but not newsboat's cache (no `rss_item` table with its columns).
  case notNewsboatCache(path: String, reason: String)

  public var description: String {
    switch self {
    case .unreadable(let path, let reason): "\(path): cannot be read as SQLite: \(reason)"
    case .notNewsboatCache(let path, let reason): "\(path): a SQLite database, but not newsboat's cache.db (\(reason))"
    }
  }
}

/// What ``NewsRepository/importReadingState(of:)`` did.
public struct NewsboatStateImport: Sendable, Hashable {
  /// Items read in newsboat.
  public var read = 0
  /// Of them, the articles found here, now read (whatever their state was).
  public var markedRead = 0
  /// Items flagged in newsboat.
  public var flagged = 0
  /// Of them, the articles found here, now bookmarked.
  public var bookmarked = 0
  /// Items read or flagged in newsboat with no article here: not fetched yet (or evicted, or deleted here).
  public var notFound = 0
}

extension NewsRepository {
  /// Marks read the cached articles newsboat read, and bookmarks those it flagged (any flag), through the
  /// repository's reading state (``markRead(_:url:)``, ``bookmark(_:url:)``). An item is found by the key our feed
  /// reader gives it (``NewsboatCache/Item``: its canonical link, else its guid scoped to its feed), never by
  /// title; an item its feed lists twice under one link and guid (one item in newsboat, two articles here, keyed
  /// apart) is found by that link among its feed's articles, and every copy is marked. An item not found is counted
  /// in ``NewsboatStateImport/notFound`` (fetching its feed first, then importing again, finds it). Nothing is
  /// marked unread or unbookmarked.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func importReadingState(of cache: NewsboatCache) async throws(NewsRepositoryError) -> NewsboatStateImport {
    var result = NewsboatStateImport()
    var readKeys: [String] = []
    var bookmarkKeys: [String] = []
    // Every item's keys looked up at once (in chunks), not one query after another per item.
    // The stored key each candidate finds: by key or link, or by item identifier (a linked item's guid scoped to
    // its feed, when newsboat's link is not ours: a link post's `url` is the page it links to).
    let existing = try await storing {
      try await storage.keys(findingArticles: cache.items.flatMap(\.candidateKeys), itemIDs: true)
    }
    // An item that its feed lists twice (one link, one guid) is one item in newsboat and two articles here, each
    // keyed apart: found by its link as the feed gave it, among the articles of its feed, and marked in each.
    let unfound = cache.items.filter { item in !item.candidateKeys.contains { existing[$0] != nil } }
    let linked = try await storing { try await storage.articleKeys(linkedTo: unfound.map(\.link)) }
    for item in cache.items {
      if item.isRead { result.read += 1 }
      if item.isFlagged { result.flagged += 1 }
      let found =
        item.candidateKeys.lazy.compactMap({ existing[$0] }).first.map { [$0] }
        ?? (linked[item.link] ?? []).filter { $0.hasPrefix(item.scopePrefix) }
      guard !found.isEmpty else {
        result.notFound += 1
        continue
      }
      if item.isRead {
        readKeys += found
        result.markedRead += 1
      }
      if item.isFlagged {
        bookmarkKeys += found
        result.bookmarked += 1
      }
    }
    try await markRead(true, urls: readKeys)
    for key in bookmarkKeys { try await bookmark(url: key) }
    return result
  }
}
