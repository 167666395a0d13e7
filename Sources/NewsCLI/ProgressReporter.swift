import Foundation
import OfflineNewsModel
import Synchronization

/// A progress line for long work (large imports, syncs), drawn on standard error and rewritten in place:
/// ```
/// importing  12,400/50,000 records  24%  8,310 records/s  ETA 5 s
/// ```
/// It is drawn only when standard error is a terminal and the command was not given `--quiet`; otherwise every
/// call does nothing, so a pipe, a file or a log never receives a partial line or a carriage return. On a terminal
/// the line is rewritten with `\r` (padded with spaces over the previous one, no escape codes), at most every
/// `interval` seconds, and fitted to the terminal's width so it never wraps.
///
/// Call ``advance(by:)`` or ``update(completed:)`` as work is done, and ``finish()`` before printing anything else
/// to standard error (an error or a summary), which clears the line. It is safe to call from any task.
final class ProgressReporter: Sendable {
  /// What the line says before the counts, e.g. `importing`.
  let label: String
  /// The number of records expected, when known (for the percentage and the ETA).
  let total: Int?
  /// The unit counted, e.g. `records`.
  let unit: String
  /// Whether anything is drawn: standard error is a terminal and not `--quiet`.
  let isEnabled: Bool

  private let write: @Sendable (String) -> Void
  private let width: Int
  private let interval: Double
  private let clock: @Sendable () -> Double
  private let start: Double

  private struct State {
    var completed = 0
    var lastDraw: Double?
    var drawnWidth = 0
    var finished = false
    /// What the work does after counting (``enter(_:)``), and the time counting stopped, which the rate keeps.
    var stage: (text: String, elapsed: Double)?
  }
  private let state = Mutex(State())

  /// - Parameters:
  ///   - label: what the line says first, e.g. `importing`.
  ///   - total: the number of records expected, when known.
  ///   - unit: the unit counted (plural), e.g. `records`, `articles`.
  ///   - console: where to draw: its standard error, if it is a terminal.
  ///   - quiet: `--quiet`: draw nothing.
  ///   - interval: the least time in seconds between two redraws.
  ///   - clock: a monotonic clock in seconds; tests inject their own.
  init(
    _ label: String, total: Int? = nil, unit: String = "records", console: Console, quiet: Bool = false,
    interval: Double = 0.1, clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
  ) {
    self.label = label
    self.total = total.map { max(0, $0) }
    self.unit = unit
    self.isEnabled = console.errorIsTerminal && !quiet
    self.write = console.err
    self.width = max(20, console.errorWidth ?? 80)
    self.interval = interval
    self.clock = clock
    self.start = clock()
  }

  /// Records `count` more done and redraws if the last draw is older than the interval.
  func advance(by count: Int = 1) {
    guard isEnabled else { return }
    update { $0 + count }
  }

  /// Records that `completed` records are done in all and redraws if the last draw is older than the interval.
  func update(completed: Int) {
    guard isEnabled else { return }
    update { _ in completed }
  }

  /// Says that counting is over and the work goes on with `stage` (e.g. `writing the search index…` after the last
  /// article of an import, which can take seconds more): the line is drawn at once with the count and rate as they
  /// are, followed by `stage`, and stays so until ``finish()``, so that a long last step does not look like a hang.
  func enter(_ stage: String) {
    guard isEnabled else { return }
    let now = clock()
    state.withLock { state in
      if state.stage == nil { state.stage = (stage, now - start) } else { state.stage?.text = stage }
    }
    update(force: true) { $0 }
  }

  /// Clears the line, leaving the cursor at the start of an empty line. Later calls draw nothing.
  func finish() {
    guard isEnabled else { return }
    let text: String? = state.withLock { state in
      guard !state.finished else { return nil }
      state.finished = true
      guard state.drawnWidth > 0 else { return nil }
      return "\r" + String(repeating: " ", count: state.drawnWidth) + "\r"
    }
    if let text { write(text) }
  }

  private func update(force: Bool = false, _ change: (Int) -> Int) {
    let now = clock()
    let text: String? = state.withLock { state in
      guard !state.finished else { return nil }
      let wasDone = total.map { state.completed >= $0 } ?? false
      state.completed = max(0, change(state.completed))
      let justDone = !wasDone && (total.map { state.completed >= $0 } ?? false)
      if let last = state.lastDraw, now - last < interval, !justDone, !force { return nil }
      state.lastDraw = now
      var line = Self.line(
        label, completed: state.completed, total: total, unit: unit, elapsed: state.stage?.elapsed ?? now - start)
      if let stage = state.stage { line += "  " + stage.text }
      line = OutputFormat.clip(line, width - 1)
      let lineWidth = OutputFormat.displayWidth(line)
      let padding = String(repeating: " ", count: max(0, state.drawnWidth - lineWidth))
      state.drawnWidth = lineWidth
      return "\r" + line + padding
    }
    if let text { write(text) }
  }

  /// The text of the line: `label  done/total unit  percent  rate unit/s  ETA time`, leaving out what is unknown.
  static func line(_ label: String, completed: Int, total: Int?, unit: String, elapsed: Double) -> String {
    var parts = [label]
    if let total {
      parts.append("\(completed.groupedDigits)/\(total.groupedDigits) \(unit)")
      if total > 0 { parts.append("\(Int(min(100, Double(completed) * 100 / Double(total))))%") }
    } else {
      parts.append("\(completed.groupedDigits) \(unit)")
    }
    if elapsed > 0, completed > 0 {
      let rate = min(Double(completed) / elapsed, 1e15)
      parts.append("\(Int(rate.rounded()).groupedDigits) \(unit)/s")
      if let total, total > completed { parts.append("ETA " + duration(Double(total - completed) / rate)) }
    }
    return parts.joined(separator: "  ")
  }

  /// `5 s`, `2 min 5 s`, `1 h 3 min`: a remaining time, rounded up to the second.
  static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds < 360_000 else { return "—" }
    let whole = Int(seconds.rounded(.up))
    if whole < 60 { return "\(whole) s" }
    if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
    return "\(whole / 3600) h \(whole % 3600 / 60) min"
  }
}
