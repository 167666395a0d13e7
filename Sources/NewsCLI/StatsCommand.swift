import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// `news stats`: what the cache holds.
struct StatsCommand: NewsCommand {
  static let name = "stats"
  static let summary = "Show what the cache holds: rows per entity, size on disk, schema version, last fetch per query."

  typealias Option = NoOption
  static let storeOptions = StoreOptions<Option>(
    json: "{database, bytes, pageSize, freeBytes, schemaVersion, entities, fetches}")

  struct Report: Encodable {
    struct Entity: Encodable {
      var name: String
      var rows: Int
    }
    var database: String
    /// The database file plus its write-ahead log, in bytes.
    var bytes: Int64
    /// The database file's page size, in bytes.
    var pageSize: Int
    /// Bytes of free pages in the database file (space of deleted rows, reused by later writes; `news compact`
    /// gives it back).
    var freeBytes: Int64
    var schemaVersion: Int
    var entities: [Entity]
    var fetches: [OutputFormat.FetchDocument]
    var unread: Int
    var bookmarked: Int
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let storage = try context.makeStorage(arguments.common, reading: true)
    let report: Report
    let counts = try await storage.entityCounts()
    let fetchRecords = try await storage.fetchRecords()
    let unread = try await storage.count(FetchRequest(entity: "article", predicate: .attribute("isRead") == false))
    let bookmarked = try await storage.count(
      FetchRequest(entity: "article", predicate: .attribute("bookmarkedAt").isNotNull))
    let bytes = StorageContext.bytesOnDisk(storage.path)
    let pages = try await storage.pageUsage()
    report = Report(
      database: storage.path, bytes: bytes, pageSize: pages.pageSize,
      freeBytes: Int64(pages.freePages) * Int64(pages.pageSize), schemaVersion: try await storage.storedSchemaVersion(),
      entities: counts.map { Report.Entity(name: $0.entity, rows: $0.count) },
      fetches: fetchRecords.map { .init(query: $0.query, fetchedAt: $0.fetchedAt, articles: $0.cachedCount) },
      unread: unread, bookmarked: bookmarked)
    let console = context.console
    if arguments.json {
      console.out(OutputFormat.json(report))
      return .success
    }
    let now = context.now()
    var text = "database  \(OutputFormat.sanitized(report.database))\n"
    text += "size      \(sizeLine(report))\n"
    let latest = StorageContext.schemaVersion
    // A store one keeps-reads migration behind is read as it is and migrated at its first write (or `news compact`).
    text +=
      report.schemaVersion < latest
      ? "schema    version \(report.schemaVersion) (updated to \(latest) at the next write, or by 'news compact')\n"
      : "schema    version \(report.schemaVersion)\n"
    let nameWidth = max(14, (report.entities.map(\.name.count).max() ?? 0) + 1)
    for entity in report.entities {
      text +=
        "entity    \(pad(OutputFormat.sanitized(entity.name), nameWidth))\(entity.rows) row\(entity.rows == 1 ? "" : "s")\n"
    }
    text += "articles  \(report.unread) unread, \(report.bookmarked) bookmarked\n"
    if report.fetches.isEmpty { text += "fetches   none yet\n" }
    for fetch in fetches(report, now: now) { text += fetch }
    console.printLines(text)
    return .success
  }

  /// The size line: the file's size, its page size, the free space in it, and when `news compact` would help (a
  /// tenth or more of the file free and at least 1 MB, or pages smaller than new stores'), that it would.
  private func sizeLine(_ report: Report) -> String {
    var line = "\(OutputFormat.fileSize(report.bytes)), \(report.pageSize / 1024) KiB pages"
    if report.freeBytes > 0 { line += ", \(OutputFormat.fileSize(report.freeBytes)) of them free" }
    let worthCompacting = report.freeBytes >= 1_000_000 && report.freeBytes * 10 >= report.bytes
    if report.pageSize < StorageContext.newDatabasePageSize {
      line += " ('news compact' moves the store to \(StorageContext.newDatabasePageSize / 1024) KiB pages"
      line += worthCompacting ? " and gives the free space back)" : ")"
    } else if worthCompacting {
      line += " ('news compact' gives them back)"
    }
    return line
  }

  /// One line per fetch in aligned columns: when, how many articles (right-aligned), the query.
  private func fetches(_ report: Report, now: Date) -> [String] {
    let counts = report.fetches.map { "\($0.articles) article\($0.articles == 1 ? "" : "s")" }
    let countWidth = counts.map(\.count).max() ?? 0
    return zip(report.fetches, counts).map { fetch, count in
      let when = fetch.fetched(now: now)
      let shown = String(repeating: " ", count: countWidth - count.count) + count
      return "fetch     \(pad(when, 11))\(shown)  \(OutputFormat.sanitized(fetch.query))\n"
    }
  }
}
