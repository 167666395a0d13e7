import Foundation
import OfflineNewsModel

/// The human-readable report.
enum Report {
  static func machine(_ machine: Machine, date: String) -> String {
    """
    news-bench, \(date)
    machine:  \(machine.cpu), \(machine.cores) cores, \(String(format: "%.1f", machine.memoryGB)) GiB, \(machine.kernel)
              sqlite3 CLI \(machine.sqlite) (Python's sqlite3 module: \(machine.pythonSQLite)), \(machine.python)\
    \(machine.sqliteUtils.map { ", sqlite-utils \($0)" } ?? "")
              \(machine.swift)
    source:   \(machine.source.map { "git \($0) (the working copy in the current folder)" } ?? "not a git working copy")

    """
  }

  static func text(_ results: Results) -> String {
    var out = machine(results.machine, date: results.date)
    let payload = results.payload
    out += """
      payload:  \(payload.articles.groupedDigits) articles, \(megabytes(payload.bytes)) \
      (\(payload.bytes / max(1, payload.articles)) bytes/article), seed \(payload.seed); \
      \(payload.duplicateURLs.groupedDigits) repeated urls, \(payload.removedPlaceholders.groupedDigits) [Removed]
      runs:     \(results.runs), median shown; each import is its own process on a fresh database (wall clock)
      load:     \(results.loadAverage.joined(separator: " before the imports, ")) after (1/5/15-minute averages)


      """
    out += importTable(
      "import into a fresh database", results.imports, phases: true)
    out += "\n"
    out += importTable(
      "re-import of the same file into the filled database (rows unchanged)", results.reimports, phases: true)
    out += "\n"
    if let validation = results.validation {
      out += "rows:     ours \(validation.oursRows.groupedDigits)"
      for peer in validation.peers { out += ", \(peer.importer.name) \(peer.rows.groupedDigits)" }
      out += "\n"
      for peer in validation.peers {
        let rounding = peer.importer == .jsonEach ? " (SQLite rounds to the nearest ms, we truncate)" : ""
        out += "          " + pad("vs \(peer.importer.name):", 14)
        out += "publishedAt differs in \(peer.publishedAtDiffers.groupedDigits) rows\(rounding), "
        out += "text columns in \(peer.textDiffers.groupedDigits)\n"
      }
      out += "\n"
    }
    let read = results.newest50
    out += """
      newest-50 read, NewsRepository.read(limit: 50) on \(read.rows.groupedDigits) rows, \(read.latency.calls) calls:
                median \(micro(read.latency.median)), p99 \(micro(read.latency.p99)), \
      min \(micro(read.latency.min)), max \(micro(read.latency.max))
      network-first with the server refusing connections vs cachedArticles(for:), \(results.refused.cachedRows) \
      cached rows, \(results.refused.networkFirst.calls) calls each:
                cache read median \(milli(results.refused.cacheRead.median)), \
      network-first median \(milli(results.refused.networkFirst.median)) \
      (p99 \(milli(results.refused.networkFirst.p99))): difference \(milli(results.refused.difference))
                network error: \(results.refused.networkError)


      """
    out += commandLineTable(results.commandLine)
    out += """

      targets (issues 6 and 17, set at N = 100,000; this run: N = \(results.payload.articles.groupedDigits)):

      """
    out += targets(results.targets, notes: results.notes)
    if let feeds = results.feeds { out += "\n" + FeedBench.report(feeds) }
    return out
  }

  /// Spawn-to-exit latencies, ours beside sqlite3.
  static func commandLineTable(_ list: [CommandLatency]) -> String {
    guard let first = list.first else { return "" }
    var out = "command line, spawn to exit (wall clock; median of \(first.ours.runs) spawns each, interleaved):\n"
    out += "  " + pad("", 36) + pad("rows", 11, right: true) + pad("median", 10, right: true)
    out += pad("p90", 10, right: true) + pad("min", 10, right: true) + pad("cpu", 10, right: true)
    out += pad("sqlite3", 10, right: true) + pad("cpu", 10, right: true) + pad("ratio", 8, right: true) + "\n"
    for latency in list {
      out += "  " + pad(latency.name, 36) + pad(latency.rows > 0 ? latency.rows.groupedDigits : "–", 11, right: true)
      out += pad(milli(latency.ours.median), 10, right: true) + pad(milli(latency.ours.p90), 10, right: true)
      out += pad(milli(latency.ours.min), 10, right: true) + pad(milli(latency.ours.cpuMedian), 10, right: true)
      if let sqlite = latency.sqlite {
        out += pad(milli(sqlite.median), 10, right: true) + pad(milli(sqlite.cpuMedian), 10, right: true)
        out += pad(String(format: "%.1f×", latency.ours.median / max(1e-9, sqlite.median)), 8, right: true)
      }
      out += "\n"
    }
    return out
  }

  static func commandLine(_ results: CommandLineResults) -> String {
    var out = machine(results.machine, date: results.date)
    out += "load:     \(results.loadAverage.joined(separator: " before, ")) after (1/5/15-minute averages)\n\n"
    out += commandLineTable(results.commandLine) + "\n"
    out += targets(results.targets, notes: results.notes)
    return out
  }

  /// A line per target (`met` or `NOT MET`, the goal, what was measured), then a line per note.
  static func targets(_ targets: [Target], notes: [String]) -> String {
    var out = ""
    for target in targets { out += "  \(target.met ? "met    " : "NOT MET")  \(target.goal): \(target.measured)\n" }
    for note in notes { out += "note: \(note)\n" }
    return out
  }

  static func importTable(_ title: String, _ rows: [ImportSummary], phases: Bool = false) -> String {
    var out = title + "\n"
    out += "  " + pad("", 40) + pad("time", 10, right: true) + pad("× json_each", 13, right: true)
    out += pad("runs min–max", 16, right: true) + pad("cpu", 10, right: true)
    out += pad("peak RSS", 11, right: true) + pad("× payload", 11, right: true) + "\n"
    for row in rows {
      out += "  " + pad("\(number(row.importer)) \(row.label)", 40)
      out += pad(String(format: "%.3f s", row.seconds), 10, right: true)
      out += pad(row.ratioToJSONEach.map { String(format: "%.2f×", $0) } ?? "–", 13, right: true)
      let low = row.runSeconds.min() ?? 0
      let high = row.runSeconds.max() ?? 0
      out += pad(String(format: "%.2f–%.2f", low, high), 16, right: true)
      out += pad(String(format: "%.3f s", row.cpuSeconds), 10, right: true)
      out += pad(megabytes(row.peakKiB * 1024), 11, right: true)
      out += pad(String(format: "%.2f×", row.peakToPayload), 11, right: true) + "\n"
      let order = [
        "read", "decode", "open", "save", "import", "decode thread", "waiting for batches", "load", "transform",
        "upsert", "fts",
      ]
      let shown = order.compactMap { key in
        row.phases[key].map { wall in
          "\(key) " + String(format: "%.3f s", wall)
            + (row.phasesCPU[key].map { String(format: " (cpu %.3f)", $0) } ?? "")
        }
      }
      if phases, !shown.isEmpty {
        out += "  " + pad("", 6) + shown.joined(separator: " · ") + "\n"
      }
      if phases, let decodePeak = row.peakAfterDecodeKiB {
        out += "  " + pad("", 6) + "peak RSS after read + decode: \(megabytes(decodePeak * 1024))\n"
      }
    }
    return out
  }

  static func scaling(_ results: ScalingResults) -> String {
    var out = machine(results.machine, date: results.date)
    out += "scaling: fresh database each run, median, each import its own process\n"
    out += "  " + pad("N", 10, right: true) + pad("MB", 8, right: true) + pad("runs", 6, right: true)
    out += pad("ours", 11, right: true) + pad("cpu", 10, right: true) + pad("µs/article", 12, right: true)
    out += pad("peak", 10, right: true)
    out += pad("json_each", 11, right: true) + pad("cpu", 10, right: true) + pad("µs/article", 12, right: true)
    out += pad("peak", 10, right: true)
    out += pad("ratio", 8, right: true) + "\n"
    for step in results.steps {
      out += "  " + pad(step.payload.articles.groupedDigits, 10, right: true)
      out += pad(String(format: "%.1f", Double(step.payload.bytes) / 1e6), 8, right: true)
      out += pad("\(step.runs)", 6, right: true)
      out += pad(String(format: "%.3f s", step.ours.seconds), 11, right: true)
      out += pad(String(format: "%.3f s", step.ours.cpuSeconds), 10, right: true)
      out += pad(String(format: "%.2f", step.oursMicrosecondsPerArticle), 12, right: true)
      out += pad(megabytes(step.ours.peakKiB * 1024), 10, right: true)
      if let jsonEach = step.jsonEach, let perArticle = step.jsonEachMicrosecondsPerArticle {
        out += pad(String(format: "%.3f s", jsonEach.seconds), 11, right: true)
        out += pad(String(format: "%.3f s", jsonEach.cpuSeconds), 10, right: true)
        out += pad(String(format: "%.2f", perArticle), 12, right: true)
        out += pad(megabytes(jsonEach.peakKiB * 1024), 10, right: true)
        out += pad(step.ours.ratioToJSONEach.map { String(format: "%.2f×", $0) } ?? "–", 8, right: true)
      }
      out += "\n"
      if !step.ours.phases.isEmpty {
        let shown = ["read", "decode", "open", "save", "import", "decode thread"].compactMap { key in
          step.ours.phases[key].map { "\(key) " + String(format: "%.3f", $0) }
        }
        out += "  " + pad("", 10) + "ours: " + shown.joined(separator: " · ") + " s\n"
      }
      if let hundredK = step.interleavedHundredK {
        let runs = hundredK.runSeconds.map { String(format: "%.3f", $0) }.joined(separator: ", ")
        out += "  " + pad("", 10)
        out += String(
          format: "ours at 100k, before each 1M run: %.3f s (cpu %.3f s; runs ", hundredK.seconds, hundredK.cpuSeconds)
        out += runs + " s)\n"
      }
    }
    let latencies = results.steps.flatMap(\.commandLine)
    if !latencies.isEmpty { out += "\n" + commandLineTable(latencies) + "\n" }
    out += targets(results.targets, notes: results.notes)
    return out
  }

  static func number(_ importer: Importer) -> String {
    switch importer {
    case .ours: "1."
    case .jsonEach: "2."
    case .jsonEachWithQueryResult: "2b."
    case .python: "3."
    case .sqliteUtils: "4."
    }
  }

  static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let count = text.count
    guard count < width else { return text + (right ? "" : " ") }
    let fill = String(repeating: " ", count: width - count)
    return right ? fill + text : text + fill
  }

  static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
  static func micro(_ seconds: Double) -> String { String(format: "%.0f µs", seconds * 1e6) }
  static func milli(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
}
