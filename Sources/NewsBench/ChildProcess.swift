import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// An error of the benchmark itself (not of the code under test), with a message for a person.
struct BenchError: Error, CustomStringConvertible {
  var description: String

  init(_ description: String) {
    self.description = description
  }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CPU seconds used so far by this process, all threads (`CLOCK_PROCESS_CPUTIME_ID`).
func processCPUSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The peak resident set size ("high-water mark") of a process, in KiB, from `/proc/<pid>/status` (`VmHWM`).
///
/// Only the process's own memory since its last `exec` counts, unlike `getrusage`'s `ru_maxrss`, which after a
/// `posix_spawn` (a `vfork`) also takes in the parent's peak.
func peakResidentKiB(pid: String = "self") -> Int? {
  statusKiB("VmHWM", pid: pid)
}

/// The highest anonymous resident memory of this process (`RssAnon` of `/proc/self/status`, KiB: heap, stacks and
/// other memory of its own, not the file pages it maps), sampled every 10 ms on a thread of its own from `init` until
/// ``stop()``. Linux keeps no high-water mark of `RssAnon` (`VmHWM` counts file pages too, such as a database that
/// SQLite maps with `PRAGMA mmap_size`, which are the kernel's page cache, shared and reclaimable), hence the samples.
final class AnonymousPeakSampler: Sendable {
  private let state = Mutex((peak: 0, running: true))

  init() {
    Thread.detachNewThread { [self] in
      while true {
        let now = statusKiB("RssAnon") ?? 0
        let running = state.withLock { state in
          state.peak = max(state.peak, now)
          return state.running
        }
        guard running else { return }
        usleep(10_000)
      }
    }
  }

  /// Stops the sampling and returns the highest `RssAnon` seen, KiB (one last sample included).
  func stop() -> Int {
    let now = statusKiB("RssAnon") ?? 0
    return state.withLock { state in
      state.running = false
      state.peak = max(state.peak, now)
      return state.peak
    }
  }
}

/// A memory figure of a process, in KiB, from `/proc/<pid>/status`: `field` is `VmHWM` (the peak resident set),
/// `VmRSS` (the resident set now) or another `Vm…` line.
func statusKiB(_ field: String, pid: String = "self") -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
  return statusKiB(field, in: status)
}

/// The `field` value (KiB) in the text of a `/proc/<pid>/status` file, or in output that quotes its line
/// (`VmHWM:  1234 kB`).
func statusKiB(_ field: String, in text: String) -> Int? {
  for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
    return Int(line.dropFirst(field.count + 1).filter(\.isNumber))
  }
  return nil
}

/// The 1-, 5- and 15-minute load averages (`/proc/loadavg`): how busy the machine was around a measurement.
func loadAverage() -> String {
  guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
  return text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// A finished child process.
struct ChildRun {
  var exitStatus: Int32
  /// Wall-clock time from just before `posix_spawn` to the return of `wait4`.
  var seconds: Double
  /// User plus system CPU time of the child (and of any children it waited for), from `wait4`'s `rusage`.
  var cpuSeconds: Double
  var standardOutput: String
  var standardError: String
}

/// Runs `arguments[0]` (looked up in `PATH` when it has no slash) with its output captured to files in `folder`,
/// and waits for it. The parent does nothing while the child runs, so the benchmark takes no CPU from the child.
/// `environment` replaces or adds variables of this process's environment for the child.
func runChild(_ arguments: [String], outputFolder folder: String, environment extra: [String: String] = [:]) throws
  -> ChildRun
{
  let outPath = folder + "/child.stdout"
  let errPath = folder + "/child.stderr"
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

  let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  let environment =
    ProcessInfo.processInfo.environment.merging(extra) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer {
    for pointer in argv { free(pointer) }
    for pointer in environment { free(pointer) }
  }
  var pid = pid_t()
  let start = monotonicSeconds()
  let rc = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environment)
  guard rc == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
  var status: Int32 = 0
  var usage = rusage()
  while wait4(pid, &status, 0, &usage) < 0 {
    guard errno == EINTR else { throw BenchError("wait4 failed: \(String(cString: strerror(errno)))") }
  }
  let seconds = monotonicSeconds() - start
  func cpu(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
  let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
  return ChildRun(
    exitStatus: exitStatus, seconds: seconds, cpuSeconds: cpu(usage.ru_utime) + cpu(usage.ru_stime),
    standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
    standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// Runs a command and returns its standard output, or `nil` if it cannot be run or fails.
func commandOutput(_ arguments: [String], outputFolder folder: String) -> String? {
  guard let run = try? runChild(arguments, outputFolder: folder), run.exitStatus == 0 else { return nil }
  return run.standardOutput
}

/// The number the `sqlite3` CLI prints for `query` (a `SELECT count(*) …`) on `database`, opened read-only; `nil`
/// when `sqlite3` is missing or fails, or prints something else.
func sqliteCount(_ database: String, _ query: String, outputFolder folder: String) -> Int? {
  commandOutput(["sqlite3", "-readonly", database, query], outputFolder: folder).flatMap {
    Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
  }
}

/// The variables that give a child `work` as its home, with its own XDG folders in it (`config-home`, `data`,
/// `cache`), so that it reads and writes no configuration, data or cache of the machine's user.
func ownHome(_ work: String) -> [String: String] {
  [
    "HOME": work, "XDG_CONFIG_HOME": "\(work)/config-home", "XDG_DATA_HOME": "\(work)/data",
    "XDG_CACHE_HOME": "\(work)/cache",
  ]
}

/// Makes `path` an empty folder: what was there is removed.
func freshFolder(_ path: String) throws {
  try? FileManager.default.removeItem(atPath: path)
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
}

/// Writes `report` to standard output as one line of JSON: how the child processes (`--child-import`,
/// `--serve-child`) report to the benchmark that spawned them.
func printJSONLine(_ report: some Encodable) throws {
  FileHandle.standardOutput.write(try JSONEncoder().encode(report) + Data("\n".utf8))
}

/// The absolute path of a program in `PATH`, or `nil`.
func which(_ program: String) -> String? {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  for folder in path.split(separator: ":") {
    let candidate = "\(folder)/\(program)"
    if access(candidate, X_OK) == 0 { return candidate }
  }
  return nil
}
