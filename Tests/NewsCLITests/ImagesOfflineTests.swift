import Foundation
import OfflineNews
import OfflineNewsHTML
import TestSupport
import Testing

/// News readable offline (issue 18, point 3 and its "Done when"): `news fetch --full-text` keeps the lead image and
/// the article's images beside the database; with the server gone, `news show` prints the whole article and says
/// which images are offline and where; `news delete` removes them with their articles.
@Suite("Images offline through the command line")
struct ImagesOfflineTests {
  @Test(
    "fetch --full-text stores a real page's images; offline, show prints the whole article and its image files",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real/pages"))
  func imagesOffline() async throws {
    let page = try Data(contentsOf: try Fixtures.sharedReal("pages/lwn-1/source.html"))
    let server = try LoopbackHTTPServer(.closeImmediately)
    defer { server.stop() }
    // The page's content images (relative: /images/2015/…) and the item's image (its enclosure), made here.
    let names = ["map", "query", "simplify", "style"]
    var bodies = ["/lead.gif": TestImages.gif(seed: 3)]
    for (index, name) in names.enumerated() {
      bodies["/images/2015/03-qgis-\(name)-sm.png"] = TestImages.png(width: 6 + index, seed: UInt8(index))
    }
    let served = bodies
    let feed = Data(
      """
      <?xml version="1.0"?><rss version="2.0"><channel><title>Loop</title><link>\(server.url("/").absoluteString)</link>
      <item><title>QGIS 2.8</title><link>\(server.url("/Articles/637533/").absoluteString)</link><guid>qgis</guid>
      <pubDate>Wed, 25 Mar 2015 10:00:00 GMT</pubDate><description>A teaser.</description>
      <enclosure url="\(server.url("/lead.gif").absoluteString)" type="image/gif" length="40"/></item>
      </channel></rss>
      """.utf8)
    server.router = { request in
      switch request.target {
      case "/feed.xml": return .respond(status: 200, headers: ["Content-Type": "application/rss+xml"], body: feed)
      case "/Articles/637533/":
        return .respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
      default:
        guard let body = served[request.target] else { return .respond(status: 404, body: Data()) }
        let type = request.target.hasSuffix(".gif") ? "image/gif" : "image/png"
        return .respond(status: 200, headers: ["Content-Type": type], body: body)
      }
    }
    let cli = CLIHarness()
    let config = cli.directory.path("news.json")
    try Data(
      #"{"sources": {"loop": {"feed": "\#(server.url("/feed.xml").absoluteString)"}}, "timeoutSeconds": 5}"#.utf8
    ).write(to: URL(fileURLWithPath: config))
    let fetched = await cli.run("fetch", "--source", "loop", "--full-text", "--config", config, "--db", cli.database)
    #expect(fetched.status == 0, "\(fetched.err)")
    #expect(fetched.err.contains("full text: 1 fetched; images: 5 offline"), "\(fetched.err)")
    server.stop()

    let row = try #require(articles(try await cli.run("list", "--db", cli.database, "--json").json()).first)
    let handle = try #require(row["handle"] as? String)
    let shown = await cli.run("show", handle, "--db", cli.database)
    #expect(shown.status == 0, "\(shown.err)")
    // The whole article: its first and its last words as Mozilla Readability's expected.html has them (read by our
    // HTML text function, the oracle of words here).
    let expected = try String(contentsOf: try Fixtures.sharedReal("pages/lwn-1/expected.html"), encoding: .utf8)
    let words = HTMLTextRenderer.text(of: expected).split(whereSeparator: \.isWhitespace).map(String.init)
    let long = words.filter { $0.count >= 9 && $0.allSatisfy(\.isLetter) }
    let (first, last) = (try #require(long.first), try #require(long.last))
    #expect(shown.out.contains(first) && shown.out.contains(last), "\(first) … \(last)")
    #expect(shown.out.contains("images 5 of 5 offline"), "\(shown.out.suffix(800))")

    let folder = URL(fileURLWithPath: cli.database + "-images")
    let document = try await cli.run("show", handle, "--db", cli.database, "--json").json()
    let images = try #require(document["images"] as? [[String: Any]])
    #expect(images.count == 5)
    for image in images {
      let remote = try #require((image["url"] as? String).flatMap(URL.init(string:)))
      let path = try #require(image["file"] as? String)
      #expect(image["offline"] as? Bool == true)
      #expect(URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL == folder.standardizedFileURL)
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == served[remote.path], "\(remote)")
      #expect(image["bytes"] as? Int == served[remote.path]?.count)
      #expect(shown.out.contains("offline  \(path)"), "show names the file of \(remote)")
    }
    #expect(images.first?["lead"] as? Bool == true && images.first?["format"] as? String == "gif")

    // An image whose file went missing: every key is still there, the absent ones null (docs/CLI.md, JSON).
    let gone = try #require(images.last?["file"] as? String)
    try FileManager.default.removeItem(atPath: gone)
    let after = try await cli.run("show", handle, "--db", cli.database, "--json").json()
    let missing = try #require((after["images"] as? [[String: Any]])?.last)
    #expect(missing["offline"] as? Bool == false && missing["error"] is String, "\(missing)")
    for key in ["file", "bytes", "format"] { #expect(missing[key] is NSNull, "\(key): \(missing)") }

    // Batch delete takes the files with the articles.
    let deleted = await cli.run("delete", "--all", "--db", cli.database)
    #expect(deleted.status == 0, "\(deleted.err)")
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty)
  }
}
