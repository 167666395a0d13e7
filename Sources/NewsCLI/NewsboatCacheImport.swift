import Foundation
import OfflineNews

/// `news import cache.db`: newsboat's reading state (``NewsboatCache``): the articles it read marked read, those it
/// flagged bookmarked, through the repository.
struct NewsboatCacheImport {
  struct Report: Encodable {
    var file: String
    /// Items read in newsboat, and of them the articles found and marked read here.
    var read: Int
    var markedRead: Int
    /// Items flagged in newsboat, and of them the articles found and bookmarked here.
    var flagged: Int
    var bookmarked: Int
    /// Items read or flagged in newsboat that are not cached here (not fetched yet).
    var notFound: Int
    /// Items deleted in newsboat (not imported).
    var deleted: Int
  }

  var context: CommandContext
  var arguments: ParsedArguments<ImportCommand.Option>

  func run(file: String, path: String) async throws -> ExitCode {
    let cache: NewsboatCache
    do {
      cache = try NewsboatCache.read(path: path)
    } catch {
      throw CommandFailure(
        .badInput, "\(OutputFormat.sanitized("\(error)")); nothing was changed",
        hint: "news import reads one SQLite file: newsboat's cache.db (~/.local/share/newsboat/cache.db or "
          + "~/.newsboat/cache.db)")
    }
    let repository = try context.makeRepository(arguments.common)
    let result = try await repository.importReadingState(of: cache)
    let report = Report(
      file: path, read: result.read, markedRead: result.markedRead, flagged: result.flagged,
      bookmarked: result.bookmarked, notFound: result.notFound, deleted: cache.deleted)
    let console = context.console
    if arguments.json {
      console.out(OutputFormat.json(report))
      return .success
    }
    console.out(
      OutputFormat.sanitized(
        "from newsboat's \(file): marked read \(result.markedRead) of \(result.read) read there, bookmarked "
          + "\(result.bookmarked) of \(result.flagged) flagged")
        + "\n")
    if result.notFound > 0 {
      console.printNote(
        "  \(result.notFound) article\(result.notFound == 1 ? " is" : "s are") not in the cache yet: "
          + "'news fetch --all' (after importing newsboat's urls file), then import \(file) again")
    }
    return .success
  }
}
