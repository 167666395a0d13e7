import Foundation

/// A small tmpfs mounted on a fresh temporary folder, for storage fault tests: a file system that fills up for real
/// (`ENOSPC`, so SQLite reports `SQLITE_FULL`), and that can be remounted read-only or larger.
///
/// Needs root and a kernel that lets this process mount (a container without `CAP_SYS_ADMIN` does not): ``make(_:)``
/// prints a visible notice and returns `nil` otherwise. Unmounted (lazily) when the value goes away.
public final class ScratchMount: Sendable {
  /// The mount point.
  public let directory: TemporaryDirectory
  /// A path inside the mount.
  public func path(_ name: String) -> String { directory.path(name) }

  private init(directory: TemporaryDirectory) { self.directory = directory }

  /// Mounts a tmpfs of `size` (e.g. `"512k"`), or returns `nil` after printing why the caller is skipped.
  public static func make(_ size: String, for test: String = #function) -> ScratchMount? {
    guard geteuid() == 0 else {
      print("◇ SKIPPED \(test): needs root to mount a size-capped tmpfs")
      return nil
    }
    let directory = TemporaryDirectory("offlinenews-tmpfs")
    guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", directory.url.path]) else {
      print("◇ SKIPPED \(test): `mount -t tmpfs` is not allowed here (no CAP_SYS_ADMIN?)")
      return nil
    }
    return ScratchMount(directory: directory)
  }

  /// `mount -o remount,OPTIONS`, e.g. `"ro"`, `"rw"` or `"size=8m"`; whether it worked.
  @discardableResult
  public func remount(_ options: String) -> Bool {
    Self.run("/bin/mount", ["-o", "remount,\(options)", directory.url.path])
  }

  /// Fills the file system with a file named `filler` until a write fails with `ENOSPC`; returns its size.
  @discardableResult
  public func fill() -> Int {
    let descriptor = open(path("filler"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    let chunk = [UInt8](repeating: 0, count: 4096)
    var total = 0
    while true {
      let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      if written <= 0 { break }
      total += written
    }
    // Fill the last partial block too, one byte at a time.
    var byte: UInt8 = 0
    while write(descriptor, &byte, 1) == 1 { total += 1 }
    return total
  }

  /// Removes the `filler` file written by ``fill()``.
  public func unfill() { unlink(path("filler")) }

  deinit {
    _ = Self.run("/bin/umount", ["-l", directory.url.path])
  }

  static func run(_ tool: String, _ arguments: [String]) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: tool) else { return false }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }
}

/// Another process holding the write lock of a SQLite database: the `sqlite3` command line tool in
/// `BEGIN IMMEDIATE`, until ``release()``.
///
/// For example:
/// ```swift
/// guard let holder = try SQLiteLockHolder.start(path) else { return }  // no sqlite3: skipped visibly
/// defer { holder.release() }
/// ```
public final class SQLiteLockHolder: @unchecked Sendable {
  // @unchecked: the process and pipes are used by the test that owns the holder, from one task at a time.
  private let process: Process
  private let input: Pipe
  private var released = false

  /// Where `sqlite3` is, if anywhere.
  public static let tool: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  private init(process: Process, input: Pipe) {
    self.process = process
    self.input = input
  }

  public enum Failure: Error, CustomStringConvertible {
    case lockNotTaken(String)
    public var description: String {
      switch self {
      case .lockNotTaken(let why): return "sqlite3 did not take the lock: \(why)"
      }
    }
  }

  /// Starts `sqlite3 PATH`, takes the write lock and returns once it holds it; `nil` (after a visible notice) when
  /// there is no `sqlite3` here.
  public static func start(_ path: String, for test: String = #function) throws -> SQLiteLockHolder? {
    guard let tool else {
      print("◇ SKIPPED \(test): the sqlite3 command line tool is not installed (apt-get install sqlite3)")
      return nil
    }
    // A write to sqlite3's stdin after it exited must fail with EPIPE, not kill the test process.
    _ = signal(SIGPIPE, SIG_IGN)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = ["-bail", path]
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let holder = SQLiteLockHolder(process: process, input: input)
    try input.fileHandleForWriting.write(contentsOf: Data("BEGIN IMMEDIATE;\nSELECT 'held';\n".utf8))
    // Blocks until sqlite3 prints the marker (it holds the lock then) or exits (-bail: it could not take it).
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains("held") {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty {
        holder.release()
        let why = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        throw Failure.lockNotTaken(why)
      }
      seen.append(chunk)
    }
    return holder
  }

  /// Rolls back, quits `sqlite3` and waits for it to exit.
  public func release() {
    guard !released else { return }
    released = true
    if process.isRunning { try? input.fileHandleForWriting.write(contentsOf: Data("ROLLBACK;\n.quit\n".utf8)) }
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  deinit { release() }
}
