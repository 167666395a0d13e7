import Foundation
import OfflineNewsHTML

/// `news-bench --extraction`: readable-article extraction speed on a folder of real pages (each `NAME/source.html`,
/// by default `../shared/fixtures/real/pages`, Mozilla Readability's test pages), ours against Python's
/// `readability-lxml` and `trafilatura` on the same pages.
///
/// Each method runs in one process, on one thread: ours inside news-bench (`ReadabilityExtractor().extract(from:
/// url:)` on the bytes of each page, parsing included), each peer in its own `python3` (bytes in, article out:
/// `readability.Document(bytes).summary()`, `trafilatura.extract(bytes)`). Every method first reads all pages into
/// memory and extracts each once (warm-up), then times R rounds over all pages on the monotonic clock; the median
/// round gives pages per second. A peer that is not importable is skipped, and said so.
struct ExtractionBench {
  /// One method's figures.
  struct Method: Codable, Sendable {
    var name: String
    var version: String?
    /// Seconds per round over all pages, in the order run.
    var rounds: [Double]
    /// Why the method did not run, when it did not.
    var skipped: String?
    var pagesPerSecond: Double?
  }

  struct Results: Codable, Sendable {
    var machine: Machine
    var date: String
    var pagesFolder: String
    var pages: Int
    var bytes: Int
    var runs: Int
    var loadAverage: [String]
    var methods: [Method]
  }

  static let pageURL = URL(string: "http://fakehost/test/page.html")

  let options: Options
  let folder: String

  func run(machine: Machine) throws -> Results {
    let pagesFolder = URL(fileURLWithPath: options.pagesFolder).standardizedFileURL.path
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: pagesFolder)) ?? []).filter {
      FileManager.default.fileExists(atPath: "\(pagesFolder)/\($0)/source.html")
    }.sorted()
    guard !names.isEmpty else {
      throw BenchError(
        "no pages (NAME/source.html) in \(pagesFolder); ../shared/fixtures/real/pages exists only beside the "
          + "project's CI: --pages DIR names another folder")
    }
    let pages = try names.map { try Data(contentsOf: URL(fileURLWithPath: "\(pagesFolder)/\($0)/source.html")) }
    let bytes = pages.reduce(0) { $0 + $1.count }
    let loadBefore = loadAverage()

    progress("extraction: ours, \(pages.count) pages, \(options.runs) rounds")
    var methods = [ours(pages)]
    for peer in ["readability-lxml", "trafilatura"] {
      progress("extraction: \(peer)")
      methods.append(python(peer, pagesFolder: pagesFolder))
    }
    let formatter = ISO8601DateFormatter()
    return Results(
      machine: machine, date: formatter.string(from: Date()), pagesFolder: pagesFolder, pages: pages.count,
      bytes: bytes, runs: options.runs, loadAverage: [loadBefore, loadAverage()], methods: methods)
  }

  private func ours(_ pages: [Data]) -> Method {
    let extractor = ReadabilityExtractor()
    var found = 0
    for page in pages where (try? extractor.extract(from: page, url: Self.pageURL)) ?? nil != nil { found += 1 }
    var rounds: [Double] = []
    for _ in 0..<options.runs {
      let start = monotonicSeconds()
      for page in pages { _ = try? extractor.extract(from: page, url: Self.pageURL) }
      rounds.append(monotonicSeconds() - start)
    }
    return Method(
      name: "ours: ReadabilityExtractor", version: nil, rounds: rounds, skipped: nil,
      pagesPerSecond: Self.pagesPerSecond(pages.count, rounds))
  }

  /// The peer's script: reads the pages, warms up, times the rounds, prints one JSON object.
  static let pythonScript = """
    import json, os, sys, time
    folder, rounds, peer = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    try:
        from importlib.metadata import version
        if peer == "readability-lxml":
            from readability import Document
            extract = lambda page: Document(page).summary()
        else:
            import trafilatura
            extract = lambda page: trafilatura.extract(page)
        installed = version(peer)
    except Exception as error:
        print(json.dumps({"skipped": "%s: %s" % (type(error).__name__, error)}))
        sys.exit(0)
    names = sorted(n for n in os.listdir(folder) if os.path.isfile(os.path.join(folder, n, "source.html")))
    pages = [open(os.path.join(folder, n, "source.html"), "rb").read() for n in names]
    for page in pages:
        extract(page)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for page in pages:
            extract(page)
        times.append(time.perf_counter() - start)
    print(json.dumps({"version": installed, "rounds": times, "pages": len(pages)}))
    """

  private func python(_ peer: String, pagesFolder: String) -> Method {
    var method = Method(name: "\(peer) (Python)", version: nil, rounds: [], skipped: nil, pagesPerSecond: nil)
    guard which("python3") != nil else {
      method.skipped = "python3 is not in PATH"
      return method
    }
    let script = folder + "/extraction-peer.py"
    do {
      try Self.pythonScript.write(toFile: script, atomically: true, encoding: .utf8)
      let run = try runChild(
        ["python3", script, pagesFolder, String(options.runs), peer], outputFolder: folder)
      let line = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
      guard run.exitStatus == 0, let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)),
        let result = object as? [String: Any]
      else {
        method.skipped = "python3 failed (status \(run.exitStatus)): \(run.standardError.suffix(300))"
        return method
      }
      if let reason = result["skipped"] as? String {
        method.skipped = "not importable (\(reason)); pip install readability-lxml trafilatura lxml_html_clean"
        return method
      }
      method.version = result["version"] as? String
      method.rounds = result["rounds"] as? [Double] ?? []
      method.pagesPerSecond = Self.pagesPerSecond(result["pages"] as? Int ?? 0, method.rounds)
    } catch {
      method.skipped = "\(error)"
    }
    return method
  }

  /// `pages` over the median round's seconds; `nil` without rounds or pages.
  static func pagesPerSecond(_ pages: Int, _ rounds: [Double]) -> Double? {
    let seconds = median(rounds)
    return pages > 0 && seconds > 0 ? Double(pages) / seconds : nil
  }

  // MARK: Report

  static func report(_ results: Results) -> String {
    var out = Report.machine(results.machine, date: results.date)
    out += """
      pages:    \(results.pages) pages, \(Report.megabytes(results.bytes)), from \(results.pagesFolder)
      runs:     \(results.runs) rounds over all pages after a warm-up, median shown; one process, one thread each
      load:     \(results.loadAverage.joined(separator: " before, ")) after (1/5/15-minute averages)


      """
    out +=
      "  " + Report.pad("method", 38) + Report.pad("pages/s", 9, right: true)
      + Report.pad("ms/page", 9, right: true) + "  " + Report.pad("rounds (pages/s)", 18) + "ours ÷ method\n"
    let ours = results.methods.first?.pagesPerSecond
    for method in results.methods {
      let name = method.name + (method.version.map { " \($0)" } ?? "")
      guard let speed = method.pagesPerSecond else {
        out += "  " + Report.pad(name, 38) + "skipped: \(method.skipped ?? "no figures")\n"
        continue
      }
      let speeds = method.rounds.map { Double(results.pages) / $0 }
      let spread = String(format: "%.1f–%.1f", speeds.min() ?? 0, speeds.max() ?? 0)
      let ratio = ours.map { String(format: "%.2f×", $0 / speed) } ?? "—"
      out +=
        "  " + Report.pad(name, 38) + Report.pad(String(format: "%.1f", speed), 9, right: true)
        + Report.pad(String(format: "%.2f", 1000 / speed), 9, right: true) + "  " + Report.pad(spread, 18)
        + ratio + "\n"
    }
    if let ours, let peer = results.methods.first(where: { $0.name.hasPrefix("readability-lxml") }),
      let speed = peer.pagesPerSecond
    {
      let ratio = ours / speed
      out += String(
        format: "\ntarget (issue 18): ≥ 5× readability-lxml's speed: %.2f× — %@\n", ratio,
        ratio >= 5 ? "met" : "NOT met")
    }
    return out
  }
}
