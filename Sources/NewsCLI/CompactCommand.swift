import Foundation
import OfflineNews
import OfflineNewsStorage

/// `news compact`: gives the space of deleted articles back and moves an old store to 16 KiB pages
/// (``StorageContext/compact(path:busyTimeout:)``).
struct CompactCommand: NewsCommand {
  static let name = "compact"
  static let summary = "Shrink the database file to what it holds (SQLite VACUUM), with 16 KiB pages."
  static let details = """
    A store does not shrink when articles are deleted or evicted: their pages stay in the file, free, for the next
    rows. 'news compact' rewrites the file without them, and gives a store made with 4 KiB pages (before December
    2026) the 16 KiB pages that make imports faster. Every article, its read and bookmark state and the search
    index stay. No other 'news' command may use the store meanwhile; a failure (a full disk: up to twice the
    store's size is needed, in the temporary folder and beside the store) leaves it as it was. Exit status: 0
    compacted, 66 no database file, 74 storage error (another command has the store open, disk full).
    """

  typealias Option = NoOption
  static let storeOptions = StoreOptions<Option>(
    json: "{database, bytesBefore, bytesAfter, pageSizeBefore, pageSizeAfter}")

  struct Report: Encodable {
    var database: String
    var bytesBefore: Int64
    var bytesAfter: Int64
    var pageSizeBefore: Int
    var pageSizeAfter: Int
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() throws -> ExitCode {
    let path = context.databasePath(arguments.common)
    guard FileManager.default.fileExists(atPath: path) else {
      throw CommandFailure(
        .noInput, "no database at \(path): nothing to compact",
        hint: "'news fetch' or 'news import' creates it; --db PATH names another")
    }
    let compaction: StoreCompaction
    do {
      compaction = try StorageContext.compact(path: path)
    } catch {
      guard error.kind == .busy else { throw error }
      throw CommandFailure(
        .storage, error.description,
        hint: "another 'news' command (or app) has the store open: compact when it has finished")
    }
    if let from = compaction.migratedFrom {
      context.console.err("news: updated the store from schema version \(from) to \(StorageContext.schemaVersion)\n")
    }
    let report = Report(
      database: path, bytesBefore: compaction.bytesBefore, bytesAfter: compaction.bytesAfter,
      pageSizeBefore: compaction.pageSizeBefore, pageSizeAfter: compaction.pageSizeAfter)
    if arguments.json {
      context.console.out(OutputFormat.json(report))
      return .success
    }
    let pages =
      report.pageSizeBefore == report.pageSizeAfter
      ? "\(report.pageSizeAfter / 1024) KiB pages"
      : "\(report.pageSizeAfter / 1024) KiB pages, were \(report.pageSizeBefore / 1024) KiB"
    let sizes = "\(OutputFormat.fileSize(report.bytesBefore)) → \(OutputFormat.fileSize(report.bytesAfter))"
    context.console.printLines(OutputFormat.sanitized("compacted \(path): \(sizes) (\(pages))") + "\n")
    return .success
  }
}
