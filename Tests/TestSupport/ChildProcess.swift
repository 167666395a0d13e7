import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started with `posix_spawn` (not Foundation's `Process`, whose `run()` over-reads `/proc/self/fd`
/// entries and crashed a whole test run once, see docs/RELIABILITY.md), standard input from `/dev/null` or a
/// descriptor the test writes to, its output discarded or written where the test reads it (``ProgramRun``: pipes;
/// ``PseudoTerminal``: ptys; `SQLiteLockHolder`: a pipe each way), waited for without blocking a thread of the
/// cooperative pool. The one place the tests start a process.
public final class ChildProcess: Sendable {
  public enum TerminationReason: Sendable { case exit, uncaughtSignal }

  public let processIdentifier: pid_t
  /// The raw `waitpid` status once reaped.
  private let reaped = Mutex<Int32?>(nil)

  public struct SpawnError: Error, CustomStringConvertible {
    public var code: Int32
    public var description: String { "posix_spawn failed: \(String(cString: strerror(code)))" }
  }

  /// Starts `executable` with `arguments` in `currentDirectory`, with the test process's environment plus `extra`
  /// (`extra` alone when not `inheritingEnvironment`), standard input read from `input` (a pipe's read end) or from
  /// `/dev/null`, and its standard output and error written to `outputs` (pipes' write ends, ptys' slaves), or
  /// discarded. The child gets copies of the descriptors given; the caller closes its own.
  ///
  /// - Throws: ``SpawnError`` when `posix_spawn` fails.
  public init(
    _ executable: URL, _ arguments: [String], environment extra: [String: String] = [:],
    inheritingEnvironment: Bool = true, currentDirectory: String = FileManager.default.temporaryDirectory.path,
    input: Int32? = nil, outputs: (output: Int32, errors: Int32)? = nil
  ) throws {
    var environment = inheritingEnvironment ? ProcessInfo.processInfo.environment : [:]
    environment.merge(extra) { $1 }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let input {
      posix_spawn_file_actions_adddup2(&actions, input, 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    if let outputs {
      posix_spawn_file_actions_adddup2(&actions, outputs.output, 1)
      posix_spawn_file_actions_adddup2(&actions, outputs.errors, 2)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    // `env -C DIR` changes the folder and then execs the program in the same process (the pid stays the child's):
    // posix_spawn_file_actions_addchdir_np is not imported into Swift.
    let launcher = "/usr/bin/env"
    let argv: [UnsafeMutablePointer<CChar>?] =
      ([launcher, "-C", currentDirectory, executable.path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, launcher, &actions, nil, argv, envp)
    guard status == 0 else { throw SpawnError(code: status) }
    processIdentifier = pid
  }

  /// A pipe, `(read, write)`, both ends closed on exec (`pipe2` is not imported), so that no other child started
  /// meanwhile keeps an end open and a read ends when the one child given the write end is done.
  ///
  /// - Throws: ``SpawnError`` with `pipe`'s `errno`.
  public static func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw SpawnError(code: errno) }
    for descriptor in ends { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    return (ends[0], ends[1])
  }

  /// Blocks the calling thread until the child has ended (polling ``isRunning`` every millisecond): for a caller
  /// that cannot `await` ``exited()`` (a `deinit`, a blocking run on a thread of its own).
  public func waitBlocking() {
    while isRunning { usleep(1_000) }
  }

  /// Whether the child is still running (reaps it when it has ended).
  public var isRunning: Bool {
    reaped.withLock { status in
      if status != nil { return false }
      var raw: Int32 = 0
      let result = waitpid(processIdentifier, &raw, WNOHANG)
      if result == processIdentifier {
        status = raw
        return false
      }
      return result == 0 || (result == -1 && errno == EINTR)
    }
  }

  /// Waits for the child to end: a thread of its own blocks in `waitpid`, so that no thread of the cooperative pool
  /// is blocked. Not to be called while another task asks ``isRunning``.
  public func exited() async {
    guard isRunning else { return }
    let pid = processIdentifier
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let thread = Thread { [self] in
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &raw, 0) } while result == -1 && errno == EINTR
        // -1 (ECHILD): ``isRunning`` reaped it meanwhile and kept its status.
        if result == pid { reaped.withLock { $0 = raw } }
        continuation.resume()
      }
      thread.name = "ChildProcess.waitpid:\(pid)"
      thread.start()
    }
  }

  /// How the child ended (after ``exited()``).
  public var terminationReason: TerminationReason {
    let raw = reaped.withLock { $0 } ?? 0
    return raw & 0x7F == 0 ? .exit : .uncaughtSignal
  }

  /// The exit status, or the signal number when it ended by a signal (after ``exited()``).
  public var terminationStatus: Int32 {
    let raw = reaped.withLock { $0 } ?? 0
    return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
  }
}
