import CSQLite
import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization

/// `news-bench --child-import FILE DB [--sqlite-memory]`: the `news import` path, alone in its own process so that its wall time and
/// peak memory can be measured like those of `sqlite3` and `python3`.
///
/// It does what `ImportCommand` does. A file of 4 MB or more is streamed: `NewsAPIFileStream` reads it in 1 MB windows and decodes
/// batches of 2,000 records on its own thread while the `StorageContext` saves the previous batch, all in one
/// transaction under the file URL's cache key (phases `open`, then `import`; `decode thread` is the decoding time
/// that overlapped the save). A smaller file is read with `Data(contentsOf:)`, decoded whole by `NewsAPIDecoder`
/// and saved (phases `read`, `decode`, `open`, `save`). It prints one JSON line with the time of each phase and its
/// own `VmHWM` (an ``ImportReport``).
enum ChildImport {
  /// Runs the import of `file` into `database` and prints its report.
  ///
  /// - Parameter sqliteMemory: count SQLite's memory (`SQLITE_CONFIG_MEMSTATUS` on, which the store turns off for
  ///   speed: `Connection`), to report ``ImportReport/sqlitePeakKiB``; the import is then a little slower than
  ///   `news import`.
  static func run(file: String, database: String, sqliteMemory: Bool = false) async -> Int32 {
    if sqliteMemory {
      // Configured and initialized before the store opens a connection, so that its own configuration is refused.
      _ = csqlite_config_memstatus(1)
      _ = sqlite3_initialize()
    }
    let sqlitePeak = { sqliteMemory ? Int(sqlite3_memory_highwater(0) / 1024) : nil }
    do {
      let url = URL(fileURLWithPath: file)
      var clock = PhaseClock()
      if let stream = try NewsAPIFileStream(path: file) {
        defer { stream.cancel() }
        let storage = try StorageContext(path: database)
        clock.lap("open")
        let lastBatch = Moment()
        let result = try await storage.saveArticles(
          forQuery: NewsQuery(url: url).cacheKey, fetchedAt: .now(),
          batches: {
            let batch = try stream.next()
            if batch == nil { lastBatch.mark() }
            return batch
          })
        clock.lap("import")
        var phases = clock.wall
        var phasesCPU = clock.cpu
        if let (wall, cpu) = lastBatch.since() {
          phases["import after the last batch"] = wall
          phasesCPU["import after the last batch"] = cpu
        }
        phases["decode thread"] = stream.decodeSeconds
        phases["waiting for batches"] = stream.waitSeconds
        let issues = stream.issues
        let report = ImportReport(
          phases: phases, phasesCPU: phasesCPU, saved: result.saved, skipped: issues.filter(\.skipped).count,
          issues: issues.count, peakAfterDecodeKiB: nil, peakKiB: peakResidentKiB() ?? 0,
          sqlitePeakKiB: sqlitePeak())
        try printJSONLine(report)
        return 0
      }
      let page = try readAndDecode(url, &clock)
      let peakAfterDecode = peakResidentKiB() ?? 0
      let storage = try StorageContext(path: database)
      clock.lap("open")
      _ = try await storage.saveArticles(page.articles, forQuery: NewsQuery(url: url).cacheKey, fetchedAt: .now())
      clock.lap("save")
      let report = ImportReport(
        phases: clock.wall, phasesCPU: clock.cpu, saved: page.articles.count, skipped: page.skippedCount,
        issues: page.issues.count, peakAfterDecodeKiB: peakAfterDecode, peakKiB: peakResidentKiB() ?? 0,
        sqlitePeakKiB: sqlitePeak())
      try printJSONLine(report)
      return 0
    } catch {
      FileHandle.standardError.write(Data("news-bench --child-import: \(error)\n".utf8))
      return 1
    }
  }

  /// Reads and decodes; the file's bytes are released on return, as in `FileNewsNetwork.fetch`.
  private static func readAndDecode(_ url: URL, _ clock: inout PhaseClock) throws -> NewsPage {
    let data = try Data(contentsOf: url)
    clock.lap("read")
    let page = try NewsAPIDecoder().decode(data)
    clock.lap("decode")
    return page
  }
}

/// One moment of a run, marked on any thread: the wall and process CPU time since it (the part of an import after
/// its last batch was handed over: the index builds, the result list, the commit, which only the writer's thread
/// works on, but for the search index's merge beside it).
final class Moment: Sendable {
  private let marked = Mutex<(wall: Double, cpu: Double)?>(nil)

  func mark() { marked.withLock { $0 = (monotonicSeconds(), processCPUSeconds()) } }

  /// Wall and CPU seconds since ``mark()``; `nil` when it was not marked.
  func since() -> (wall: Double, cpu: Double)? {
    marked.withLock { $0 }.map { (monotonicSeconds() - $0.wall, processCPUSeconds() - $0.cpu) }
  }
}

/// Wall and CPU time of consecutive phases.
struct PhaseClock {
  private var lastWall = monotonicSeconds()
  private var lastCPU = processCPUSeconds()
  private(set) var wall: [String: Double] = [:]
  private(set) var cpu: [String: Double] = [:]

  mutating func lap(_ phase: String) {
    let nowWall = monotonicSeconds()
    let nowCPU = processCPUSeconds()
    wall[phase] = nowWall - lastWall
    cpu[phase] = nowCPU - lastCPU
    lastWall = nowWall
    lastCPU = nowCPU
  }
}
