import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What this machine lets the fault tests do, found out once. For `@Test(.enabled(if:))`, so that a test that cannot
/// run here is reported by the runner as skipped, with its reason:
///
/// ```swift
/// @Test(.enabled(if: FaultCapabilities.canMountTmpfs, "needs root and permission to mount a tmpfs"))
/// ```
public enum FaultCapabilities {
  /// Whether the tests run as root (who ignores permission bits).
  public static let isRoot = geteuid() == 0

  /// Whether a size-capped tmpfs can be mounted: root, and a kernel that lets this process mount (a container
  /// without `CAP_SYS_ADMIN` does not).
  public static let canMountTmpfs: Bool = isRoot && (try? ScratchMount.make("64k")) != nil

  /// Whether `chattr +i` works on a file in the temporary folder: root, and a file system with the immutable
  /// attribute (ext4, xfs, btrfs, tmpfs ≥ 6.0).
  public static let canMakeImmutable: Bool = {
    guard isRoot, let chattr = chattrTool else { return false }
    let directory = TemporaryDirectory("offlinenews-chattr")
    let file = directory.path("probe")
    guard FileManager.default.createFile(atPath: file, contents: Data()) else { return false }
    guard ProgramRun.succeeds(chattr, ["+i", file]) else { return false }
    return ProgramRun.succeeds(chattr, ["-i", file])
  }()

  /// `chattr +i` on `path` when `on`, else `chattr -i`: whether it worked (`false` with no `chattr` here). For a test
  /// enabled by ``canMakeImmutable`` (or ``canMakeFileReadOnly`` as root), which takes the attribute off again.
  @discardableResult
  public static func setImmutable(_ path: String, _ on: Bool) -> Bool {
    guard let chattrTool else { return false }
    return ProgramRun.succeeds(chattrTool, [on ? "+i" : "-i", path])
  }

  /// Whether a file can be made read-only for the tests themselves: permission bits for other users, `chattr +i`
  /// for root.
  public static var canMakeFileReadOnly: Bool { !isRoot || canMakeImmutable }

  /// Makes the file at `path` read-only for the tests themselves, in a test enabled by ``canMakeFileReadOnly``:
  /// `chattr +i` as root (who ignores permission bits; ext4, xfs, btrfs, tmpfs ≥ 6.0), else mode 0444. Whether it
  /// worked; ``undoReadOnly(_:)`` makes it writable again.
  public static func makeReadOnly(_ path: String) -> Bool {
    isRoot ? setImmutable(path, true) : chmod(path, 0o444) == 0
  }

  /// Undoes ``makeReadOnly(_:)``: `chattr -i` as root, else mode 0644.
  public static func undoReadOnly(_ path: String) {
    if isRoot { setImmutable(path, false) } else { chmod(path, 0o644) }
  }

  /// Whether the `sqlite3` command line tool is installed (``SQLiteLockHolder``).
  public static var hasSQLiteTool: Bool { SQLiteLockHolder.tool != nil }

  /// Where `chattr` is, if anywhere.
  public static let chattrTool: String? = ["/usr/bin/chattr", "/bin/chattr"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
}

/// A small tmpfs mounted on a fresh temporary folder, for storage fault tests: a file system that fills up for real
/// (`ENOSPC`, so SQLite reports `SQLITE_FULL`), and that can be remounted read-only or larger.
///
/// Needs root and a kernel that lets this process mount (``FaultCapabilities/canMountTmpfs``). Unmounted (lazily)
/// when the value goes away.
public final class ScratchMount: Sendable {
  /// The mount point.
  public let directory: TemporaryDirectory
  /// A path inside the mount.
  public func path(_ name: String) -> String { directory.path(name) }

  private init(directory: TemporaryDirectory) { self.directory = directory }

  /// Why a tmpfs could not be mounted.
  public struct MountFailure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Mounts a tmpfs of `size` (e.g. `"512k"`), for a test enabled by ``FaultCapabilities/canMountTmpfs``.
  ///
  /// - Throws: ``MountFailure`` when not root, or when `mount -t tmpfs` fails.
  public static func make(_ size: String) throws -> ScratchMount {
    guard geteuid() == 0 else { throw MountFailure(description: "mounting a tmpfs needs root") }
    let directory = TemporaryDirectory("offlinenews-tmpfs")
    guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", directory.url.path]) else {
      throw MountFailure(description: "`mount -t tmpfs` failed on \(directory.url.path) (no CAP_SYS_ADMIN?)")
    }
    return ScratchMount(directory: directory)
  }

  /// `mount -o remount,OPTIONS`, e.g. `"ro"`, `"rw"` or `"size=8m"`; whether it worked.
  @discardableResult
  public func remount(_ options: String) -> Bool {
    Self.run("/bin/mount", ["-o", "remount,\(options)", directory.url.path])
  }

  /// Fills the file system with a file named `filler` until a write fails with `ENOSPC`, then gives back `leaving`
  /// bytes of it (`ftruncate`: tmpfs frees whole pages, so about that much space is left); returns its size.
  @discardableResult
  public func fill(leaving: Int = 0) -> Int {
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
    if leaving > 0 {
      total = max(0, total - leaving)
      _ = ftruncate(descriptor, off_t(total))
    }
    return total
  }

  /// Removes the `filler` file written by ``fill()``.
  public func unfill() { unlink(path("filler")) }

  deinit {
    _ = Self.run("/bin/umount", ["-l", directory.url.path])
  }

  static func run(_ tool: String, _ arguments: [String]) -> Bool { ProgramRun.succeeds(tool, arguments) }
}

/// Another process holding the write lock of a SQLite database: the `sqlite3` command line tool in
/// `BEGIN IMMEDIATE`, until ``release()``.
///
/// For example, in a test enabled by ``FaultCapabilities/hasSQLiteTool``:
/// ```swift
/// let holder = try SQLiteLockHolder.start(path)
/// defer { holder.release() }
/// ```
public final class SQLiteLockHolder: @unchecked Sendable {
  // @unchecked: the child and its pipes are used by the test that owns the holder, from one task at a time.
  private let child: ChildProcess
  /// Write end of the child's standard input.
  private let input: Int32
  /// Read end of the child's standard output.
  private let output: Int32
  private var released = false

  /// Where `sqlite3` is, if anywhere.
  public static let tool: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  private init(child: ChildProcess, input: Int32, output: Int32) {
    self.child = child
    self.input = input
    self.output = output
  }

  public enum Failure: Error, CustomStringConvertible {
    case noTool
    case lockNotTaken(String)
    public var description: String {
      switch self {
      case .noTool: return "the sqlite3 command line tool is not installed (apt-get install sqlite3)"
      case .lockNotTaken(let why): return "sqlite3 did not take the lock: \(why)"
      }
    }
  }

  /// Starts `sqlite3 PATH` (a ``ChildProcess`` with a pipe to its standard input and one from its standard output,
  /// its standard error discarded), takes the write lock and returns once it holds it.
  ///
  /// - Throws: ``Failure`` when there is no `sqlite3` here (see ``FaultCapabilities/hasSQLiteTool``) or it did
  ///   not take the lock.
  public static func start(_ path: String) throws -> SQLiteLockHolder {
    guard let tool else { throw Failure.noTool }
    // A write to sqlite3's stdin after it exited must fail with EPIPE, not kill the test process.
    _ = signal(SIGPIPE, SIG_IGN)
    guard let holder = spawn(tool, path) else { throw Failure.lockNotTaken("\(tool) could not be started") }
    // Returns once sqlite3 prints the marker (it holds the lock then), or fails when it exits (-bail: no lock).
    guard holder.send("BEGIN IMMEDIATE;\nSELECT 'held';\n"), holder.read(until: "held") else {
      holder.release()
      throw Failure.lockNotTaken("sqlite3 exited before it held the lock on \(path)")
    }
    return holder
  }

  /// `sqlite3 -bail PATH` in the test process's folder, with a pipe each way and its standard error discarded; `nil`
  /// when it cannot be started.
  private static func spawn(_ tool: String, _ path: String) -> SQLiteLockHolder? {
    guard let toChild = try? ChildProcess.makePipe() else { return nil }
    guard let fromChild = try? ChildProcess.makePipe() else {
      close(toChild.read)
      close(toChild.write)
      return nil
    }
    let discard = open("/dev/null", O_WRONLY | O_CLOEXEC)
    // The child has its own copies of its ends: this process keeps the others.
    defer { for descriptor in [toChild.read, fromChild.write, discard] where descriptor >= 0 { close(descriptor) } }
    guard discard >= 0,
      let child = try? ChildProcess(
        URL(fileURLWithPath: tool), ["-bail", path], currentDirectory: FileManager.default.currentDirectoryPath,
        input: toChild.read, outputs: (fromChild.write, discard))
    else {
      close(toChild.write)
      close(fromChild.read)
      return nil
    }
    return SQLiteLockHolder(child: child, input: toChild.write, output: fromChild.read)
  }

  /// Rolls back, quits `sqlite3` and waits for it to exit.
  public func release() {
    guard !released else { return }
    released = true
    send("ROLLBACK;\n.quit\n")
    close(input)
    close(output)
    child.waitBlocking()
  }

  /// Writes `text` to the child's standard input; whether all of it was written.
  @discardableResult
  private func send(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) } == bytes.count
  }

  /// Reads what the child writes until `marker` appears (true) or its output ends (false).
  private func read(until marker: String) -> Bool {
    var seen: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
      if count <= 0 { return false }
      seen += buffer[0..<count]
      if String(decoding: seen, as: UTF8.self).contains(marker) { return true }
    }
  }

  deinit { release() }
}
