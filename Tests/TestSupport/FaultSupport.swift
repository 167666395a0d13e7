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
    guard spawnAndWait(chattr, ["+i", file]) else { return false }
    return spawnAndWait(chattr, ["-i", file])
  }()

  /// Whether a file can be made read-only for the tests themselves: permission bits for other users, `chattr +i`
  /// for root.
  public static var canMakeFileReadOnly: Bool { !isRoot || canMakeImmutable }

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

  static func run(_ tool: String, _ arguments: [String]) -> Bool { spawnAndWait(tool, arguments) }
}

/// Runs a command line tool (with `posix_spawn`, see ``Spawned``), its output discarded; whether it exited with 0.
@discardableResult
public func spawnAndWait(_ tool: String, _ arguments: [String]) -> Bool {
  guard FileManager.default.isExecutableFile(atPath: tool), let child = Spawned(tool, arguments) else { return false }
  return child.wait() == 0
}

/// A child process started with `posix_spawn`, its standard error to /dev/null, and optionally pipes to its standard
/// input and output.
///
/// Not Foundation's `Process`: its `run()` copies each `/proc/self/fd` entry as a full 256-byte name, past the end of
/// `readdir`'s buffer (docs/RELIABILITY.md), which crashed a whole test run once (SIGSEGV in `memcpy`).
struct Spawned {
  let pid: pid_t
  /// Write end of the child's standard input, when piped.
  let input: Int32?
  /// Read end of the child's standard output, when piped.
  let output: Int32?

  init?(_ tool: String, _ arguments: [String], pipes: Bool = false) {
    var toChild: [Int32] = [-1, -1]
    var fromChild: [Int32] = [-1, -1]
    if pipes {
      guard pipe(&toChild) == 0 else { return nil }
      guard pipe(&fromChild) == 0 else {
        close(toChild[0])
        close(toChild[1])
        return nil
      }
      // Close-on-exec (pipe2 is not imported): no other child started meanwhile keeps these pipes open.
      for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if pipes {
      posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
      posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, tool, &actions, nil, argv, environ)
    if pipes {
      close(toChild[0])
      close(fromChild[1])
    }
    guard status == 0 else {
      if pipes {
        close(toChild[1])
        close(fromChild[0])
      }
      return nil
    }
    self.pid = pid
    input = pipes ? toChild[1] : nil
    output = pipes ? fromChild[0] : nil
  }

  /// Writes `text` to the child's standard input; whether all of it was written.
  @discardableResult
  func send(_ text: String) -> Bool {
    guard let input else { return false }
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) } == bytes.count
  }

  /// Reads what the child writes until `marker` appears (true) or its output ends (false).
  func read(until marker: String) -> Bool {
    guard let output else { return false }
    var seen: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
      if count <= 0 { return false }
      seen += buffer[0..<count]
      if String(decoding: seen, as: UTF8.self).contains(marker) { return true }
    }
  }

  /// Closes the pipes and waits for the child; its exit status, or -1 if it did not exit normally.
  func wait() -> Int32 {
    if let input { close(input) }
    if let output { close(output) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
  }
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
  private let child: Spawned
  private var released = false

  /// Where `sqlite3` is, if anywhere.
  public static let tool: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  private init(child: Spawned) { self.child = child }

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

  /// Starts `sqlite3 PATH`, takes the write lock and returns once it holds it.
  ///
  /// - Throws: ``Failure`` when there is no `sqlite3` here (see ``FaultCapabilities/hasSQLiteTool``) or it did
  ///   not take the lock.
  public static func start(_ path: String) throws -> SQLiteLockHolder {
    guard let tool else { throw Failure.noTool }
    // A write to sqlite3's stdin after it exited must fail with EPIPE, not kill the test process.
    _ = signal(SIGPIPE, SIG_IGN)
    guard let child = Spawned(tool, ["-bail", path], pipes: true) else {
      throw Failure.lockNotTaken("\(tool) could not be started")
    }
    let holder = SQLiteLockHolder(child: child)
    // Returns once sqlite3 prints the marker (it holds the lock then), or fails when it exits (-bail: no lock).
    guard child.send("BEGIN IMMEDIATE;\nSELECT 'held';\n"), child.read(until: "held") else {
      holder.release()
      throw Failure.lockNotTaken("sqlite3 exited before it held the lock on \(path)")
    }
    return holder
  }

  /// Rolls back, quits `sqlite3` and waits for it to exit.
  public func release() {
    guard !released else { return }
    released = true
    child.send("ROLLBACK;\n.quit\n")
    _ = child.wait()
  }

  deinit { release() }
}
