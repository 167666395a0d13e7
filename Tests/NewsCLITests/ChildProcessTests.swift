import Foundation
import Testing

@testable import NewsCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// ``ChildProcess``: the one way `news open` and `news read`'s reload start a program and read how it ended.
@Suite("A child process: started with this environment, its exit status or signal read back")
struct ChildProcessTests {
  private let environment = ["PATH": "/usr/bin:/bin"]

  @Test("a program found on PATH runs with its arguments; its exit status is read back")
  func exitStatus() throws {
    let pid = try ChildProcess.start(["sh", "-c", "exit 3"], environment: environment, searchingPath: true)
    #expect(ChildProcess.exitStatus(of: pid) == 3)
  }

  @Test("a child ended by a signal reads as 128 + the signal, as a shell says it")
  func signal() throws {
    // SIGKILL: a child inherits the signals its parent ignores, and a test runner may ignore SIGTERM.
    let pid = try ChildProcess.start(["/bin/sh", "-c", "kill -KILL $$"], environment: environment)
    #expect(ChildProcess.exitStatus(of: pid) == 128 + SIGKILL)
  }

  @Test("a child starts with every signal at its default action, though this process ignores SIGTERM")
  func signalsAtDefault() throws {
    // As under `nohup`: SIGTERM ignored here for the moment of the start (a child would inherit that, and a shell
    // cannot undo an ignored signal); `exit 7` if the TERM did not end it, instead of a child that never stops.
    var ignore = sigaction()
    var previous = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    try #require(sigaction(SIGTERM, &ignore, &previous) == 0)
    let pid = Result { () throws(ChildProcess.StartFailure) in
      try ChildProcess.start(["/bin/sh", "-c", "kill -TERM $$; exit 7"], environment: environment)
    }
    sigaction(SIGTERM, &previous, nil)
    #expect(ChildProcess.exitStatus(of: try pid.get()) == 128 + SIGTERM)
  }

  @Test("the environment given is the child's whole environment, and its output goes to the descriptor given")
  func environmentAndOutput() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    defer { close(ends[0]) }
    let pid = try ChildProcess.start(
      ["/bin/sh", "-c", "printf '%s' \"$GREETING:$HOME\""], environment: ["GREETING": "hello"], output: ends[1])
    close(ends[1])
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = read(ends[0], &buffer, buffer.count)
    #expect(ChildProcess.exitStatus(of: pid) == 0)
    #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == "hello:")
  }

  @Test("a program that is not there is not started: posix_spawn's error, not a child that fails")
  func notThere() throws {
    let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-program-\(UUID())").path
    #expect(throws: ChildProcess.StartFailure(code: ENOENT)) {
      try ChildProcess.start([missing], environment: environment)
    }
    #expect(OpenCommand.spawn(missing, "https://example.com/", environment: environment) == .notStarted(ENOENT))
  }
}
