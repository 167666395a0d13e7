import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsMicroHTTPD
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

#if canImport(Glibc)
  import Glibc
#endif

/// The web reader in a real browser: headless Chromium, driven over the DevTools protocol (``WebBrowserDriver``),
/// against `news serve`'s front door and libmicrohttpd transport on loopback, with every source's feed at a port
/// where nothing listens (all of it comes from the store). Skipped with a notice without `chromium` or `python3`.
///
/// `OFFLINENEWS_WRITE_SCREENSHOT=1` also saves the screenshot as `docs/images/web-reader.png`.
@Suite struct WebBrowserTests {
  static let chromium = WebBrowserTests.executable("chromium") ?? WebBrowserTests.executable("chromium-browser")
  static let python = WebBrowserTests.executable("python3")
  static var available: Bool {
    if chromium == nil || python == nil {
      print("notice: WebBrowserTests skipped: needs chromium and python3 on PATH")
      return false
    }
    return true
  }

  static func executable(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }

  @Test(.enabled(if: WebBrowserTests.available, "needs chromium and python3"), .timeLimit(.minutes(3)))
  func aBrowserListsSearchesOpensAndMarksReadFromTheStoreAlone() async throws {
    let fixture = try await WebFixture()
    let (chromium, python) = (try #require(Self.chromium), try #require(Self.python))
    let server = try NewsServer(library: fixture.library).start(on: .microHTTPD, port: 0)
    let work = TemporaryDirectory("web-browser")
    let driver = work.url.appendingPathComponent("driver.py")
    try Data(WebBrowserDriver.source.utf8).write(to: driver)
    let screenshot = work.path("web-reader.png")
    let log = work.path("steps.jsonl")
    let started = ContinuousClock.now
    let child = try ChildProcess(
      python,
      [driver.path, chromium.path, "http://127.0.0.1:\(server.port)", screenshot, work.path("profile"), log])
    let pid = child.processIdentifier
    let watchdog = Task {
      try await Task.sleep(for: .seconds(120))
      kill(pid, SIGTERM)
    }
    await child.exited()
    watchdog.cancel()
    await server.stop()
    let elapsed = ContinuousClock.now - started
    let steps = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    print("WebBrowserTests: \(elapsed) in Chromium\n\(steps)")
    #expect(child.terminationReason == .exit && child.terminationStatus == 0, "\(steps)")
    #expect(steps.hasSuffix("done\n"))
    // Marked read by the page's `m`, in the store the CLI reads.
    let story = try await fixture.repository.article(url: fixture.story.url.absoluteString)
    #expect(story?.isRead == true)
    // Starred by the form alone, JavaScript off.
    #expect(story?.isBookmarked == true)
    let others = try await fixture.repository.read(filter: ArticleFilter(unreadOnly: true))
    #expect(others.count == 3)
    let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    if ProcessInfo.processInfo.environment["OFFLINENEWS_WRITE_SCREENSHOT"] == "1" {
      let target = Fixtures.packageRoot.appendingPathComponent("docs/images/web-reader.png")
      try FileManager.default.createDirectory(
        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try png.write(to: target)
    }
  }
}
