import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// The refreshes `news serve` starts itself, when it listens beyond loopback, follow no redirect to another host on
/// its own machine or network (``NewsServer/redirectRule``, the rule of ``SubscribeTarget``): a feed subscribed at
/// one address that later redirects to `localhost` is not read there. Before, the subscription was checked once and
/// every later refresh followed the redirect wherever it went. Both servers are on loopback (the only addresses a
/// test has): the feed's own host is followed (the owner's feed on the own network moving path or port), another
/// host on the machine (`localhost`) is refused; the owner's `news fetch` (no rule) follows it.
@Suite("news serve's refreshes follow no redirect to its own machine or network")
struct RefreshRedirectTests {
  static func rss(_ title: String) -> Data {
    Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <rss version="2.0"><channel><title>Feed</title><link>https://blog.example.org/</link>
      <item><title>\(title)</title><link>https://blog.example.org/\(title)</link></item></channel></rss>
      """.utf8)
  }

  /// A repository over a real URLSession network, `refusing` redirects as `news serve` beyond loopback does when set.
  static func repository(_ directory: TemporaryDirectory, refusing: Bool) throws -> NewsRepository {
    let storage = try StorageContext(path: directory.path("news.sqlite"))
    let rule = refusing ? NewsServer.redirectRule : nil
    let network = HTTPNewsNetwork(key: nil, timeout: 5, refusedRedirects: rule)
    return NewsRepository(storage: storage, network: network)
  }

  @Test func aRedirectToAnotherHostOnTheMachineIsNotFollowed() async throws {
    let feed = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Outside")))
    let inside = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Inside")))
    defer {
      feed.stop()
      inside.stop()
    }
    let directory = TemporaryDirectory("refresh-redirects")
    let repository = try Self.repository(directory, refusing: true)
    let source = NewsSource(name: "Blog", url: feed.url("/feed.xml"))
    let first = await repository.refresh([source])
    #expect(first.sources.first?.failure == nil)

    // The feed now redirects to a service of the machine, named `localhost`.
    feed.behaviour = .respond(
      status: 302, headers: ["Location": "http://localhost:\(inside.port)/feed.xml"], body: Data())
    let refused = await repository.refresh([source])
    let failure = try #require(refused.sources.first?.failure, "\(refused.sources.map(\.status))")
    #expect(failure.description.contains("news serve reads no address on its own machine or network"), "\(failure)")
    #expect(inside.requests.isEmpty, "the redirect was not followed")
    #expect(try await repository.read().map(\.title) == ["Outside"])

    // To the feed's own host (here 127.0.0.1, another port): followed.
    feed.behaviour = .respond(
      status: 302, headers: ["Location": inside.url("/feed.xml").absoluteString], body: Data())
    let sameHost = await repository.refresh([source])
    #expect(sameHost.sources.first?.failure == nil, "\(sameHost.sources.map(\.status))")
    #expect(inside.requests.count == 1)
  }

  @Test func theOwnersFetchFollowsIt() async throws {
    let feed = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Outside")))
    let inside = try LoopbackHTTPServer(.respond(status: 200, body: Self.rss("Inside")))
    defer {
      feed.stop()
      inside.stop()
    }
    feed.behaviour = .respond(
      status: 302, headers: ["Location": "http://localhost:\(inside.port)/feed.xml"], body: Data())
    let directory = TemporaryDirectory("refresh-redirects-owner")
    let repository = try Self.repository(directory, refusing: false)
    let report = await repository.refresh([NewsSource(name: "Blog", url: feed.url("/feed.xml"))])
    #expect(report.sources.first?.failure == nil, "\(report.sources.map(\.status))")
    #expect(inside.requests.count == 1)
  }

  @Test func theRuleIsSubscribeTargets() throws {
    func url(_ text: String) throws -> URL { try #require(URL(string: text)) }
    let rule = NewsServer.redirectRule
    #expect(try rule(url("https://feeds.example/a"), url("http://169.254.169.254/latest/meta-data/")) != nil)
    #expect(try rule(url("https://feeds.example/a"), url("http://10.1.2.3/feed")) != nil)
    #expect(try rule(url("https://feeds.example/a"), url("http://[::1]:8080/")) != nil)
    #expect(try rule(url("http://10.0.0.5/feed"), url("https://10.0.0.5/feed")) == nil, "the owner's own feed moves")
    #expect(try rule(url("http://10.0.0.5/feed"), url("http://10.0.0.6/feed")) != nil)
    #expect(try rule(url("https://feeds.example/a"), url("https://192.0.2.7/b")) == nil, "a public address")
  }
}
