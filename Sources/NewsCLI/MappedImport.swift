import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsModel

/// `news import FILE --mapping NAME|PATH`: the general importer, driven by a mapping file.
struct MappedImport {
  var context: CommandContext
  var arguments: ParsedArguments<ImportCommand.Option>

  /// `--json`: the ``ImportReport`` and `cached`, the articles in the cache after an eviction (`null` when nothing
  /// was evicted), as the NewsAPI import's report has it.
  private struct Cached: Encodable {
    var cached: Int?
  }

  func run(file: String, path: String, mapping name: String) async throws -> ExitCode {
    var mapping = try context.loadMapping(name)
    if let root = arguments.value(.root) {
      guard mapping.roots[root] != nil else {
        let roots = mapping.roots.keys.sorted().joined(separator: ", ")
        throw CommandFailure(
          .usage, "mapping \(mapping.name) has no root \"\(root)\"",
          hint: roots.isEmpty ? "this mapping has a single root: leave --root out" : "its roots: \(roots)")
      }
      if let named = mapping.root(matchingFileName: URL(fileURLWithPath: path).lastPathComponent), named != root {
        context.console.printNote(
          "\(file) is named like the root \(named), and is imported as \(root) as --root says")
      }
      do { mapping = try mapping.selecting(root: root) } catch { throw CommandFailure(.usage, error.description) }
    } else if !mapping.roots.isEmpty {
      guard let root = mapping.root(matchingFileName: URL(fileURLWithPath: path).lastPathComponent) else {
        throw CommandFailure(
          .usage, "which root of mapping \(mapping.name) is \(file)?",
          hint: "pass --root (one of \(mapping.roots.keys.sorted().joined(separator: ", ")))")
      }
      do { mapping = try mapping.selecting(root: root) } catch { throw CommandFailure(.usage, error.description) }
    }
    let options = try importOptions(mapping)
    let data: Data
    do {
      data = try LocalFile.read(path)
    } catch {
      // In the words and with the hints of every other import: no such file, is a directory, permission denied.
      throw context.importRefusal(file, path: path, .unreadableFile(path: path, reason: error.reason))
    }
    let repository = try context.makeRepository(arguments.common, entities: mapping.entityDescriptions)
    let report: ImportReport
    do throws(ImportFailure) {
      // Ctrl-C: the import is one transaction: stopped before any commit, the store is as it was; said so (every
      // commit counts: with no progress to tell the import's own, a commit of the store's set-up lets it finish).
      let console = context.console
      let mapping = mapping
      report = try await Interruption.endingAtOnce(.wholeOrNothing, through: repository) {
        _, gate throws(ImportFailure) in
        gate.count()
        return try await repository.importRecords(data, mapping: mapping, source: path, options: options)
      } ending: {
        console.printNote(ImportCommand.interruptedNote(file))
      }
    } catch {
      switch error {
      case .input(let error): throw CommandFailure(.badInput, "\(file): \(error); nothing was saved")
      case .storage(let error): throw error
      case .cancelled: throw CancellationError()
      }
    }
    // As the NewsAPI import says: how many the cache keeps after an eviction, so "20 inserted" is not read as kept.
    let cached = report.evicted > 0 ? try? await repository.counts().total : nil
    let console = context.console
    if arguments.json {
      console.out(OutputFormat.json(Merged(report, Cached(cached: cached))))
    } else {
      var counts =
        "\(report.inserted) inserted, \(report.updated) updated, \(report.unchanged) unchanged, "
        + "\(report.skipped) skipped, \(report.failed) failed"
      if report.deleted > 0 || options.deleteMissing != nil { counts += ", \(report.deleted) deleted" }
      counts += ", \(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s")"
      let target =
        mapping.join.map { "\($0.entity).\($0.relationship)" } ?? mapping.rootEntities.joined(separator: ", ")
      counts += context.evictionNote(evicted: report.evicted, cached: cached)
      counts += OutputFormat.leftOut(report.remembered, evicted: report.rememberedEvicted)
      console.printLines("\(OutputFormat.sanitized(file)) → \(OutputFormat.sanitized(target)): " + counts + "\n")
      // Messages about records go to standard error, counted by reason; --verbose lists them.
      context.reportRecordErrors(report.failures, arguments.common)
      if !report.warnings.isEmpty {
        let count = report.warnings.count
        let verbose = arguments.verbose
        console.printNote(
          "\(count) value\(count == 1 ? "" : "s") not read (the records were kept): "
            + OutputFormat.reasonCounts(report.warnings.map(\.reason))
            + (verbose ? "" : " (--verbose lists \(count == 1 ? "it" : "them"))"))
        if verbose { for warning in report.warnings { console.printNote("  warning: \(warning)") } }
      }
    }
    // Any record not imported — a root record, a nested object, a new row the store refused — is a failure.
    let failures = report.failures.count
    if failures > 0 {
      if !arguments.json {
        console.printNote(
          "\(failures) record\(failures == 1 ? "" : "s") failed and \(failures == 1 ? "was" : "were") not saved; "
            + "the others were")
      }
      return .recordsFailed
    }
    return .success
  }

  /// `--delete-missing`, `--delete-missing-where ATTR=VALUE`, `--insert-only`, `--update-only`.
  func importOptions(_ mapping: ImportMapping) throws(CommandFailure) -> Importer.Options {
    var options = Importer.Options(importTime: Timestamp(context.now()))
    if arguments.flag(.insertOnly), arguments.flag(.updateOnly) {
      throw CommandFailure(.usage, "--insert-only and --update-only exclude each other; give one (or neither: upsert)")
    }
    if arguments.flag(.insertOnly) { options.operation = .insertOnly }
    if arguments.flag(.updateOnly) { options.operation = .updateOnly }
    let scoped = arguments.value(.deleteMissingWhere)
    if arguments.flag(.deleteMissing), scoped != nil {
      throw CommandFailure(
        .usage, "--delete-missing and --delete-missing-where exclude each other",
        hint: "--delete-missing mirrors the whole entity; --delete-missing-where ATTR=VALUE only the matching rows")
    }
    if mapping.join != nil, arguments.flag(.deleteMissing) || scoped != nil {
      throw CommandFailure(.usage, "a join export holds links, not rows: --delete-missing does not apply to it")
    }
    if arguments.flag(.deleteMissing) { options.deleteMissing = .entity }
    if let scoped {
      do {
        options.deleteMissing = try mapping.deletionScope(scoped)
      } catch {
        guard case .invalidMapping(let message) = error else { throw CommandFailure(.usage, error.description) }
        throw CommandFailure(.usage, "--delete-missing-where \(scoped): \(message)")
      }
    }
    return options
  }
}

extension CommandContext {
  /// The mapping `name`: a path (with `/` or ending in `.json`), else `NAME.json` in ``mappingFolders``, else the
  /// shipped mapping of that name (``ImportMapping/shipped(_:)``).
  func loadMapping(_ name: String) throws(CommandFailure) -> ImportMapping {
    let candidates: [String]
    if name.contains("/") || name.hasSuffix(".json") {
      candidates = [resolvedPath(name)]
    } else {
      candidates = mappingFolders.map { $0 + "/\(name).json" }
    }
    guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
      if !name.contains("/"), !name.hasSuffix(".json") {
        do {
          if let shipped = try ImportMapping.shipped(name) { return shipped }
        } catch {
          throw CommandFailure(.config, error.description)
        }
      }
      throw CommandFailure(
        .usage, "no mapping \"\(name)\"",
        hint: "looked for \(candidates.joined(separator: ", ")); shipped: "
          + ImportMapping.shippedNames.joined(separator: ", "))
    }
    do {
      return try ImportMapping.load(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw CommandFailure(.config, error.description)
    }
  }
}
