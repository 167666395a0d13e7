import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a program run to its end wrote and how it ended: the one launcher of the tests that run a program and read
/// its output (newsboat, sqlite3, git, bash, tmux, `news` itself). (``ChildProcess`` is for a child whose output is
/// not read, killed or waited for while the test goes on.)
public struct ProgramRun: Sendable {
  /// The exit status, or 128 + the signal number when a signal ended it (as a shell says, and ``PseudoTerminal``).
  public var status: Int32
  /// Its standard output, as UTF-8 (invalid bytes replaced).
  public var out: String
  /// Its standard error, as UTF-8 (invalid bytes replaced).
  public var err: String

  /// The program `name` found in a folder of `PATH` (`/usr/bin:/bin` when unset), or `nil`.
  public static func program(_ name: String) -> String? {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Runs `program` with `arguments` to its end and collects both outputs, blocking the calling thread: a
  /// ``ChildProcess`` with standard input from `/dev/null`, in `folder` (the test process's when `nil`), with
  /// `environment` alone (the test process's when `nil`). A program still running after `seconds` is sent SIGTERM.
  /// From an `async` test, use ``run(_:_:environment:in:seconds:)``, which blocks no thread of the cooperative pool.
  ///
  /// - Throws: ``ChildProcess/SpawnError`` when the program cannot be started.
  public static func runBlocking(
    _ program: String, _ arguments: [String], environment: [String: String]? = nil, in folder: String? = nil,
    seconds: Double = 60
  ) throws -> ProgramRun {
    // Close-on-exec pipes (``ChildProcess/makePipe()``): the reads here end when this child is done.
    let output = try ChildProcess.makePipe()
    let errors: (read: Int32, write: Int32)
    do {
      errors = try ChildProcess.makePipe()
    } catch {
      close(output.read)
      close(output.write)
      throw error
    }
    let child: ChildProcess
    do {
      child = try ChildProcess(
        URL(fileURLWithPath: program), arguments, environment: environment ?? [:],
        inheritingEnvironment: environment == nil,
        currentDirectory: folder ?? FileManager.default.currentDirectoryPath, outputs: (output.write, errors.write))
    } catch {
      for descriptor in [output.read, output.write, errors.read, errors.write] { close(descriptor) }
      throw error
    }
    // The child has its own copies of the write ends: the test keeps the read ends.
    close(output.write)
    close(errors.write)
    let deadline = DispatchWorkItem { if child.isRunning { kill(child.processIdentifier, SIGTERM) } }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
    // Standard error is drained on a thread of its own while standard output is read here: a program that fills
    // one pipe while the other is not read would wait forever.
    let errorDrain = Drain(FileHandle(fileDescriptor: errors.read, closeOnDealloc: true))
    let outputBytes = FileHandle(fileDescriptor: output.read, closeOnDealloc: true).readDataToEndOfFile()
    let errorBytes = errorDrain.data()
    // Its outputs are closed: it has ended, or is about to (a program that closes them early is waited for).
    child.waitBlocking()
    deadline.cancel()
    return ProgramRun(
      status: child.terminationStatus + (child.terminationReason == .exit ? 0 : 128),
      out: String(decoding: outputBytes, as: UTF8.self),
      err: String(decoding: errorBytes, as: UTF8.self))
  }

  /// Whether `program` (a path) ran to its end with status 0, by ``runBlocking(_:_:environment:in:seconds:)``, its
  /// output dropped: for a tool a test only needs to have worked (`chattr`, `mount`). `false` when `program` is not
  /// an executable file or cannot be started.
  @discardableResult
  public static func succeeds(_ program: String, _ arguments: [String]) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: program) else { return false }
    return (try? runBlocking(program, arguments))?.status == 0
  }

  /// ``runBlocking(_:_:environment:in:seconds:)`` on a thread of its own, so that no thread of the cooperative pool
  /// waits for the program (a server the program talks to may need it).
  ///
  /// - Throws: ``ChildProcess/SpawnError`` when the program cannot be started.
  public static func run(
    _ program: String, _ arguments: [String], environment: [String: String]? = nil, in folder: String? = nil,
    seconds: Double = 60
  ) async throws -> ProgramRun {
    try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(
          with: Result {
            try runBlocking(program, arguments, environment: environment, in: folder, seconds: seconds)
          })
      }
    }
  }

  /// A pipe read to its end on a thread of its own.
  private final class Drain: @unchecked Sendable {
    /// What was read, written once by the reading thread before `done` is signalled.
    private var bytes = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
      Thread.detachNewThread { [self] in
        bytes = handle.readDataToEndOfFile()
        done.signal()
      }
    }

    /// Everything the pipe carried, once its writers have all closed it.
    func data() -> Data {
      done.wait()
      return bytes
    }
  }
}
