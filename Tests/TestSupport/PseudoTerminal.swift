import Foundation
import PTYSupport
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a program with its standard output and standard error each on a pseudo-terminal of a given size, as a
/// user's terminal would be, and collects what it wrote.
///
/// Each stream gets its own pty (so the two can be told apart), with output post-processing off (no `\n` → `\r\n`),
/// so the text is exactly what the program wrote. The window size is set with `TIOCSWINSZ` before the program
/// starts, so `ioctl(TIOCGWINSZ)` in the program sees it. The environment is exactly the one given (plus `TERM`
/// when it has none), not the test process's: a `NO_COLOR` in the CI's environment must not change a test.
public enum PseudoTerminal {
  /// What the program wrote and how it ended.
  public struct Outcome: Sendable {
    /// The exit status (or 128 + the signal number).
    public var status: Int32
    /// What it wrote on standard output.
    public var out: String
    /// What it wrote on standard error.
    public var err: String
  }

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// What the program has written on standard error so far, while it runs: for a test that waits for a progress
  /// line before it signals the program.
  public final class Transcript: Sendable {
    private let written = Mutex(Data())
    public init() {}
    /// Standard error up to now.
    public var errorText: String { String(decoding: written.withLock { $0 }, as: UTF8.self) }
    fileprivate func append(_ bytes: ArraySlice<UInt8>) { written.withLock { $0.append(contentsOf: bytes) } }
  }

  /// Runs `executable` with `arguments` in `currentDirectory`, standard input from `/dev/null`, standard output and
  /// error on ptys `columns` wide and 24 lines high, and waits for it to end; `whileRunning`, when given, is called
  /// with the program's process id once it runs, while its output is read (to signal it, say); `transcript`, when
  /// given, receives standard error as it is read.
  public static func run(
    _ executable: URL, _ arguments: [String], environment: [String: String], columns: Int,
    currentDirectory: String, transcript: Transcript? = nil, whileRunning: (@Sendable (pid_t) async -> Void)? = nil
  ) async throws -> Outcome {
    let out = try Pair(columns: columns)
    let err: Pair
    do { err = try Pair(columns: columns) } catch {
      out.close()
      throw error
    }
    var environment = environment
    if environment["TERM"] == nil { environment["TERM"] = "xterm-256color" }
    let child: ChildProcess
    do {
      child = try ChildProcess(
        executable, arguments, environment: environment, inheritingEnvironment: false,
        currentDirectory: currentDirectory, outputs: (out.slave, err.slave))
    } catch {
      out.close()
      err.close()
      throw error
    }
    // Only the child holds the slaves now: reading a master ends (EIO) once the child and its children are gone.
    out.closeSlave()
    err.closeSlave()
    async let texts: (String, String) = withCheckedContinuation { continuation in
      let thread = Thread {
        let texts = drain(out.master, err.master, transcript: transcript)
        out.close()
        err.close()
        continuation.resume(returning: texts)
      }
      thread.start()
    }
    if let whileRunning { await whileRunning(child.processIdentifier) }
    let (outText, errText) = await texts
    await child.exited()
    let status = child.terminationStatus + (child.terminationReason == .exit ? 0 : 128)
    return Outcome(status: status, out: outText, err: errText)
  }

  /// A pty: the master the test reads, the slave the child writes.
  private final class Pair: @unchecked Sendable {
    var master: Int32
    var slave: Int32

    init(columns: Int) throws {
      let pty = try PTY.open(columns: columns, rows: 24)
      master = pty.master
      slave = pty.slave
      var settings = termios()
      guard tcgetattr(slave, &settings) == 0 else {
        close()
        throw Failure(description: "tcgetattr failed")
      }
      settings.c_oflag &= ~tcflag_t(OPOST)
      guard tcsetattr(slave, TCSANOW, &settings) == 0 else {
        close()
        throw Failure(description: "tcsetattr failed")
      }
    }

    func closeSlave() {
      if slave >= 0 { Glibc.close(slave) }
      slave = -1
    }

    func close() {
      closeSlave()
      if master >= 0 { Glibc.close(master) }
      master = -1
    }
  }

  /// Reads both masters until each reports the end (EIO on Linux once no process holds the slave).
  private static func drain(_ first: Int32, _ second: Int32, transcript: Transcript?) -> (String, String) {
    var buffers = [Data(), Data()]
    var open = [true, true]
    let descriptors = [first, second]
    var chunk = [UInt8](repeating: 0, count: 4096)
    while open.contains(true) {
      var polled = descriptors.enumerated().map { index, fd in
        pollfd(fd: open[index] ? fd : -1, events: Int16(POLLIN), revents: 0)
      }
      if poll(&polled, nfds_t(polled.count), -1) < 0 {
        if errno == EINTR { continue }
        break
      }
      for index in 0..<2 where open[index] && polled[index].revents != 0 {
        let count = read(descriptors[index], &chunk, chunk.count)
        if count > 0 {
          buffers[index].append(contentsOf: chunk[0..<count])
          if index == 1 { transcript?.append(chunk[0..<count]) }
        } else if count == 0 || errno != EINTR {
          open[index] = false
        }
      }
    }
    return (String(decoding: buffers[0], as: UTF8.self), String(decoding: buffers[1], as: UTF8.self))
  }
}
