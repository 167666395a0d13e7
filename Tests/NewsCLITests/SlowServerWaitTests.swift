import Foundation
import TestSupport
import Testing

/// `news-online` waiting for a slow server sleeps: its thread waits for the socket in `poll(2)`. Until libcurl
/// replaced URLSession, swift-corelibs-foundation kept a write source armed on the connected socket and the process
/// woke about 2,400 times a second while it waited (2.4 s of CPU for a 3 s wait).
@Suite("news fetch waiting for a slow server", .serialized)
struct SlowServerWaitTests {
  @Test("a fetch waiting 2 s for its answer uses almost no CPU meanwhile, then saves the answer")
  func waitingIsIdle() async throws {
    let online = try #require(
      CrashSafetyTests.builtExecutable("news-online"), "news-online is built beside the tests (swift build)")
    let feed = """
      <rss version="2.0"><channel><title>Slow</title>\
      <item><title>One</title><link>https://example.com/slow/1</link></item></channel></rss>
      """
    let server = try LoopbackHTTPServer(
      .delayed(2, then: .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: Data(feed.utf8))))
    defer { server.stop() }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("slow-wait-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let child = try ChildProcess(
      online,
      [
        "fetch", "--url", server.url("/slow.rss").absoluteString, "--db",
        folder.appendingPathComponent("n.sqlite").path,
        "--quiet", "--timeout", "30",
      ],
      environment: ["XDG_CONFIG_HOME": folder.path, "XDG_DATA_HOME": folder.path, "XDG_CACHE_HOME": folder.path])
    try await Task.sleep(for: .milliseconds(1500))
    // Read while the request waits (the answer comes at 2 s): the child's own CPU time, apart from this process's.
    let spent = try #require(Self.cpuSeconds(of: child.processIdentifier), "the child is still running")
    await child.exited()
    #expect(child.terminationStatus == 0)
    #expect(server.requests.count == 1)
    // Start-up and the request cost a few hundredths; the old wait cost about 0.8 s per second.
    #expect(spent < 0.4, "\(spent) s of CPU in the first 1.5 s")
  }

  /// The user and system CPU time of process `pid` so far, in seconds (`/proc/PID/stat`, fields 14 and 15), or `nil`
  /// when it has ended.
  static func cpuSeconds(of pid: pid_t) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // After the command name: field 3 (state) is the first; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }
}
