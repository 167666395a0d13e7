import Foundation
import OfflineNews

/// `news import FILE --mapping NAME|PATH`: the general importer, driven by a mapping file.
struct MappedImport {
  var context: CommandContext
  var arguments: ParsedArguments

  func run(file: String, path: String, mapping name: String) async throws(CommandFailure) -> ExitCode {
    var mapping = try context.loadMapping(name)
    if let root = arguments.value("root") {
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
    guard let data = FileManager.default.contents(atPath: path) else {
      let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
      throw CommandFailure(.badInput, "\(file): \(reason); nothing was saved")
    }
    let repository = try context.makeRepository(arguments, entities: mapping.entityDescriptions)
    let report: ImportReport
    do {
      report = try await Importer(mapping: mapping).run(
        data, into: repository.storage, source: path, options: .init(importTime: Timestamp(context.now())))
    } catch let error as ImportError {
      throw CommandFailure(.badInput, "\(file): \(error); nothing was saved")
    } catch let error as StorageError {
      throw CommandFailure(.storage, error.description)
    } catch {
      throw CommandFailure(.storage, "\(error)")
    }
    let console = context.console
    if arguments.flag("json") {
      console.out(OutputFormat.json(report))
    } else {
      let target = mapping.join.map { "\($0.entity).\($0.relationship)" } ?? mapping.rootEntity
      console.printLines(
        "\(OutputFormat.sanitized(file)) → \(OutputFormat.sanitized(target)): "
          + "\(report.inserted) inserted, \(report.updated) updated, \(report.unchanged) unchanged, "
          + "\(report.skipped) skipped, \(report.failed) failed\n")
      context.reportRecordErrors(report.errors, arguments)
    }
    return .success
  }
}

extension CommandContext {
  /// The mapping `name`: a path (with `/` or ending in `.json`), else `NAME.json` in ``mappingFolders``.
  func loadMapping(_ name: String) throws(CommandFailure) -> ImportMapping {
    let candidates: [String]
    if name.contains("/") || name.hasSuffix(".json") {
      candidates = [absolute(expandingTilde(name), relativeTo: currentDirectory)]
    } else {
      candidates = mappingFolders.map { $0 + "/\(name).json" }
    }
    guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
      throw CommandFailure(
        .usage, "no mapping \"\(name)\"", hint: "looked for \(candidates.joined(separator: ", "))")
    }
    do {
      return try ImportMapping.load(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw CommandFailure(.config, error.description)
    }
  }
}
