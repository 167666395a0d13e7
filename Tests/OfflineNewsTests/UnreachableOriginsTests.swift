import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import Synchronization
import Testing

@testable import OfflineNews

/// `fetch --all` stops asking an origin that cannot be reached; a time-out alone does not say so (a tester's slow
/// feed made its host's fast feeds be skipped as "failed earlier in this run").
@Suite("One refresh stops asking an unreachable origin, not a host with one slow feed")
struct UnreachableOriginsTests {
  /// Answers every URL with an empty page, except those it is told fail, with their failure.
  final class Scripted: NewsNetwork {
    let failures: [String: NewsNetworkError.TransportFailure]
    let asked = Mutex<[String]>([])
    init(_ failures: [String: NewsNetworkError.TransportFailure]) { self.failures = failures }
    func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
      asked.withLock { $0.append(query.url.path) }
      if let failure = failures[query.url.path] { throw .transport(failure, detail: "scripted") }
      return NewsPage(articles: [])
    }
  }

  static func ask(_ network: UnreachableOrigins, _ path: String) async -> Bool {
    guard let url = URL(string: "https://feeds.example.org" + path) else { return false }
    do {
      _ = try await network.fetch(NewsQuery(url: url))
      return true
    } catch {
      return false
    }
  }

  @Test("one slow feed on a host that answers: its other feeds are still asked")
  func slowFeed() async throws {
    let base = Scripted(["/slow": .timedOut])
    let network = UnreachableOrigins(base)
    #expect(await Self.ask(network, "/fast") == true)
    #expect(await Self.ask(network, "/slow") == false)
    #expect(await Self.ask(network, "/slow") == false)
    #expect(await Self.ask(network, "/other") == true)
    #expect(base.asked.withLock { $0 } == ["/fast", "/slow", "/slow", "/other"])
  }

  @Test("a slow feed asked first does not stop the host; two time-outs with no answer do")
  func blackHoledHost() async throws {
    let slowFirst = Scripted(["/slow": .timedOut])
    let first = UnreachableOrigins(slowFirst)
    #expect(await Self.ask(first, "/slow") == false)
    #expect(await Self.ask(first, "/fast") == true)
    #expect(slowFirst.asked.withLock { $0 } == ["/slow", "/fast"])

    let silent = Scripted(["/a": .timedOut, "/b": .timedOut, "/c": .timedOut])
    let down = UnreachableOrigins(silent)
    for path in ["/a", "/b", "/c", "/d"] { #expect(await Self.ask(down, path) == false) }
    #expect(silent.asked.withLock { $0 } == ["/a", "/b"], "not asked once two timed out and none answered")
  }

  @Test("connection refused marks the origin at once")
  func refused() async throws {
    let base = Scripted(["/a": .connectionRefused])
    let network = UnreachableOrigins(base)
    #expect(await Self.ask(network, "/a") == false)
    #expect(await Self.ask(network, "/b") == false)
    #expect(base.asked.withLock { $0 } == ["/a"])
  }
}
