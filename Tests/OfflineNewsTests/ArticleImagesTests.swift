import Foundation
import OfflineNews
import OfflineNewsCurl
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage
import Synchronization
import TestSupport
import Testing

/// A store, a repository keeping images in `images/` beside it, a loopback server, and a clock moved by hand.
struct ImageSetup {
  let directory = TemporaryDirectory("article-images")
  let storage: StorageContext
  let repository: NewsRepository
  let server: LoopbackHTTPServer
  let clock = TestClock()
  let transport = CurlHTTPTransport(timeout: 10)

  let folder: URL

  init(eviction: EvictionPolicy = .none) throws {
    storage = try StorageContext(path: directory.path("news.sqlite"), eviction: eviction)
    server = try LoopbackHTTPServer(.closeImmediately)
    let clock = self.clock
    let folder = directory.url.appendingPathComponent("images", isDirectory: true)
    self.folder = folder
    repository = NewsRepository(
      storage: storage, network: FileNewsNetwork(), clock: { clock.now }, imageFolder: folder)
  }

  /// Saves articles linking to `paths` of the server (the lead image `lead` each), newest first, and reads them back.
  func save(_ paths: [String], lead: [String: String] = [:], query: String = "/feed") async throws -> [Article] {
    let articles = paths.enumerated().map { index, path in
      Article(
        url: server.url(path), title: "Story \(path)", imageURL: lead[path].map { server.url($0) },
        publishedAt: Date(timeIntervalSince1970: 1_700_000_000 - Double(index) * 60))
    }
    try await repository.save(articles, for: NewsQuery(url: server.url(query)))
    var saved: [Article] = []
    for article in articles {
      saved.append(try #require(try await repository.article(url: article.url.absoluteString)))
    }
    return saved
  }

  /// The names in the image folder (hidden ones too).
  var filesInFolder: Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
  }

  func files(of article: Article) async throws -> [String: Data] {
    var files: [String: Data] = [:]
    for image in try await repository.images(of: article) where image.isOffline {
      let file = try #require(repository.imageFile(image))
      files[image.url.path] = try Data(contentsOf: file)
    }
    return files
  }
}

/// A switch a test flips while a server's router reads it.
final class Switch: Sendable {
  private let state = Mutex(false)
  var isOn: Bool { state.withLock { $0 } }
  func turnOn() { state.withLock { $0 = true } }
}

/// A readable page of our own: a heading, five paragraphs of prose (enough for the extractor), and `images`.
func storyPage(_ title: String, images: [String]) -> Data {
  let sentence =
    "The council met on Tuesday, and after a long debate about the harbour, the budget and the new library, "
    + "it decided to publish every document online, so that residents can read them before the next meeting. "
  let paragraphs = (0..<5).map { _ in "<p>\(String(repeating: sentence, count: 3))</p>" }
  let figures = images.map {
    "<figure><img src=\"\($0)\" alt=\"figure \($0)\"><figcaption>A caption.</figcaption></figure>"
  }
  var body = ""
  for (index, paragraph) in paragraphs.enumerated() {
    body += paragraph
    if index < figures.count { body += figures[index] }
  }
  body += figures.dropFirst(paragraphs.count).joined()
  return Data(
    """
    <!DOCTYPE html><html><head><title>\(title)</title></head><body><nav><a href="/">Home</a></nav>
    <article><h1>\(title)</h1>\(body)</article><footer>© The Paper</footer></body></html>
    """.utf8)
}

@Suite("Images of whole texts, offline")
struct ArticleImagesTests {
  static let html = ["Content-Type": "text/html; charset=utf-8"]
  static let png = ["Content-Type": "image/png"]

  @Test(
    "a real page's images and the lead image are stored, the HTML links to them, and they read with the server gone",
    .enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real/pages"))
  func realPage() async throws {
    let setup = try ImageSetup()
    let page = try Data(contentsOf: try Fixtures.sharedReal("pages/lwn-1/source.html"))
    // The images Mozilla Readability keeps (expected.html, which resolved them against http://fakehost), read with
    // a regular expression, not with our HTML parser.
    let expected = try String(contentsOf: try Fixtures.sharedReal("pages/lwn-1/expected.html"), encoding: .utf8)
    let regex = try NSRegularExpression(pattern: #"<img[^>]*\ssrc="http://fakehost(/[^"]+)""#)
    let paths = regex.matches(in: expected, range: NSRange(expected.startIndex..., in: expected)).compactMap {
      Range($0.range(at: 1), in: expected).map { String(expected[$0]) }
    }
    #expect(paths.count == 4)
    var bodies = ["/lead.png": TestImages.png(width: 8, height: 8, seed: 99)]
    for (index, path) in paths.enumerated() { bodies[path] = TestImages.png(width: 5 + index, seed: UInt8(index)) }
    let served = bodies
    setup.server.router = { request in
      if request.target == "/2015/qgis.html" { return .respond(status: 200, headers: Self.html, body: page) }
      if let body = served[request.target] { return .respond(status: 200, headers: Self.png, body: body) }
      return .respond(status: 404, body: Data())
    }
    let articles = try await setup.save(["/2015/qgis.html"], lead: ["/2015/qgis.html": "/lead.png"])

    let report = await setup.repository.fetchFullText(for: articles, using: setup.transport)
    #expect(report.fetched == 1 && report.failures.isEmpty, "\(report.failures)")
    #expect(report.imagesStored == 5 && report.imageFailures.isEmpty, "\(report.imageFailures)")
    setup.server.stop()

    let article = try #require(try await setup.repository.article(url: articles[0].url.absoluteString))
    #expect(try await setup.files(of: article) == bodies)
    let images = try await setup.repository.images(of: article)
    #expect(images.map(\.url.path) == ["/lead.png"] + paths)
    #expect(images.map(\.isLead) == [true, false, false, false, false])
    #expect(images.allSatisfy { $0.format == "png" && $0.byteCount == bodies[$0.url.path]?.count })
    #expect(setup.filesInFolder == Set(images.map(\.file)), "no other file, no temporary one")
    let stored = try #require(article.fullTextHTML)
    for image in images.dropFirst() {
      let file = try #require(setup.repository.imageFile(image))
      #expect(stored.contains("src=\"\(file.absoluteString)\""), "\(image.url)")
      #expect(stored.contains("data-remote-src=\"\(image.url.absoluteString)\""))
    }
    #expect(!stored.contains(" src=\"\(setup.server.baseURL.absoluteString)"), "no image left remote")
    #expect(article.fullText?.contains("QGIS") == true)

    // A second fetch finds nothing to do: no request (the server is gone), nothing changed.
    let again = await setup.repository.fetchFullText(for: [article], using: setup.transport)
    #expect(again.fetched == 0 && again.imagesStored == 0 && again.imageFailures.isEmpty)
  }

  @Test(
    "caps: count, size, wrong type, bytes that are no image, SVG; a redirect elsewhere followed; failures retried later"
  )
  func caps() async throws {
    let setup = try ImageSetup()
    let moved = TestImages.png(seed: 7)
    let elsewhere = try LoopbackHTTPServer(.respond(status: 200, headers: Self.png, body: moved))
    defer { elsewhere.stop() }
    let good = TestImages.png(seed: 1)
    let late = TestImages.png(seed: 2)
    let names = ["/ok.png", "/huge.png", "/typed-html.png", "/fake.png", "/vector.svg", "/moved.png", "/late.png"]
    let page = storyPage("Caps", images: names + ["/eighth.png"])
    let svg = Data(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#.utf8)
    let fixed = Switch()
    setup.server.router = { request in
      switch request.target {
      case "/caps.html": return .respond(status: 200, headers: Self.html, body: page)
      case "/ok.png", "/eighth.png": return .respond(status: 200, headers: Self.png, body: good)
      case "/huge.png": return .endless(status: 200, contentType: "image/png")
      case "/typed-html.png": return .respond(status: 200, headers: Self.html, body: good)
      case "/fake.png": return .respond(status: 200, headers: Self.png, body: Data("<html>no image</html>".utf8))
      case "/vector.svg": return .respond(status: 200, headers: ["Content-Type": "image/svg+xml"], body: svg)
      case "/moved.png":
        return .respond(status: 302, headers: ["Location": elsewhere.url("/moved.png").absoluteString], body: Data())
      case "/late.png":
        return fixed.isOn
          ? .respond(status: 200, headers: Self.png, body: late) : .respond(status: 503, body: Data())
      default: return .respond(status: 404, body: Data())
      }
    }
    let articles = try await setup.save(["/caps.html"])
    let limits = FullTextLimits(images: ImageLimits(maxImagesPerArticle: 7, maxBytesPerImage: 64 << 10))

    let report = await setup.repository.fetchFullText(for: articles, using: setup.transport, limits: limits)
    #expect(report.fetched == 1 && report.failures.isEmpty, "the whole text is stored whatever its images do")
    #expect(report.imagesStored == 2, "ok.png, and moved.png from the other origin (no secret is sent)")
    let reasons = report.imageFailures.map(\.reason)
    #expect(reasons.count == 5, "\(reasons)")
    for part in [
      "over the 65536-byte limit", "content type text/html; charset=utf-8 not accepted",
      "the bytes are not an image of an accepted format", "svg images are not accepted", "HTTP 503",
    ] {
      #expect(reasons.contains { $0.contains(part) }, "\(part) in \(reasons)")
    }
    #expect(elsewhere.requests.map(\.target) == ["/moved.png"], "a redirect to another origin is followed")
    #expect(!setup.server.requests.contains { $0.target == "/eighth.png" }, "past the count, not fetched")

    let article = try #require(try await setup.repository.article(url: articles[0].url.absoluteString))
    var images = try await setup.repository.images(of: article)
    #expect(images.map(\.url.path) == names)
    #expect(images.filter(\.isOffline).map(\.url.path) == ["/ok.png", "/moved.png"])
    #expect(images.filter { !$0.isOffline }.allSatisfy { $0.error != nil && $0.attemptedTimestamp == setup.clock.now })
    #expect(setup.filesInFolder == [images[0].file, images[5].file], "a refused image leaves no file")
    #expect(try Data(contentsOf: try #require(setup.repository.imageFile(images[5]))) == moved)
    let stored = try #require(article.fullTextHTML)
    #expect(stored.contains("src=\"\(setup.server.url("/eighth.png").absoluteString)\""), "stays remote")
    #expect(stored.contains("src=\"\(setup.server.url("/late.png").absoluteString)\""))

    // Not again before retryAfter; after it, the failed images only (the page is not fetched again).
    fixed.turnOn()
    let soon = await setup.repository.fetchFullText(for: [article], using: setup.transport, limits: limits)
    #expect(soon.imagesStored == 0 && soon.imageFailures.isEmpty)
    setup.clock.advance(seconds: limits.retryAfter + 1)
    let pagesBefore = setup.server.requests.filter { $0.target == "/caps.html" }.count
    let retried = await setup.repository.fetchFullText(for: [article], using: setup.transport, limits: limits)
    #expect(retried.fetched == 0)
    #expect(retried.imagesStored == 3, "ok, moved (stored before) and late (now): the article's images offline")
    #expect(
      setup.server.requests.filter { $0.target == "/ok.png" }.count == 1, "a stored image is not downloaded again")
    #expect(retried.imageFailures.count == 4, "\(retried.imageFailures.map(\.reason))")
    #expect(setup.server.requests.filter { $0.target == "/caps.html" }.count == pagesBefore)
    images = try await setup.repository.images(of: article)
    #expect(images.filter(\.isOffline).map(\.url.path) == ["/ok.png", "/moved.png", "/late.png"])
    let relinked = try #require(try await setup.repository.article(url: article.url.absoluteString)?.fullTextHTML)
    let lateFile = try #require(setup.repository.imageFile(images[6]))
    #expect(relinked.contains("src=\"\(lateFile.absoluteString)\""))
    #expect(try Data(contentsOf: lateFile) == late)
    #expect(relinked.contains("src=\"\(try #require(setup.repository.imageFile(images[0])).absoluteString)\""))
  }

  @Test("byte caps per article and per fetch: an image that would pass them is cut off, or not asked for")
  func byteCaps() async throws {
    let setup = try ImageSetup()
    let image = TestImages.png(width: 16, height: 16)
    setup.server.router = { request in
      if request.target.hasSuffix(".html") {
        let name = String(request.target.dropFirst().dropLast(5))
        return .respond(
          status: 200, headers: Self.html, body: storyPage(name, images: ["/\(name)-1.png", "/\(name)-2.png"]))
      }
      return .respond(status: 200, headers: Self.png, body: image)
    }
    let one = try await setup.save(["/a.html"], query: "/one")
    let perArticle = FullTextLimits(images: ImageLimits(maxBytesPerArticle: image.count + 10))
    let report = await setup.repository.fetchFullText(for: one, using: setup.transport, limits: perArticle)
    #expect(report.imagesStored == 1)
    #expect(
      report.imageFailures.map(\.reason) == ["\(image.count) bytes, over the 10-byte limit (the article's image limit)"]
    )

    // Each image may take at most its own size, so the fetch's budget runs out after three of the four.
    let two = try await setup.save(["/b.html", "/c.html"], query: "/two")
    let perFetch = FullTextLimits(
      images: ImageLimits(maxBytesPerImage: image.count, maxBytesPerFetch: 3 * image.count))
    let second = await setup.repository.fetchFullText(for: two, using: setup.transport, limits: perFetch)
    #expect(second.fetched == 2 && second.imagesStored == 3, "\(second.imageFailures)")
    #expect(
      second.imageFailures.map(\.reason) == ["over the \(3 * image.count)-byte image limit of the fetch"],
      "refused before it is asked for")
    #expect(setup.server.requests.filter { $0.target.hasSuffix(".png") }.count == 2 + 3)
  }

  @Test("images waiting for their host hold none of the fetch's byte budget: every one is kept when it fits")
  func budgetTakenAfterTheHostSlot() async throws {
    let setup = try ImageSetup()
    let image = TestImages.png(width: 16, height: 16)
    setup.server.router = { request in
      if request.target.hasSuffix(".html") {
        let name = String(request.target.dropFirst().dropLast(5))
        return .respond(status: 200, headers: Self.html, body: storyPage(name, images: ["/\(name).png"]))
      }
      // Slow enough that the downloads queue behind the host's two slots.
      return .delayed(0.1, then: .respond(status: 200, headers: Self.png, body: image))
    }
    let pages = (1...12).map { "/p\($0).html" }
    let saved = try await setup.save(pages, query: "/many")
    // Each image may take ten times its size; the fetch's budget holds four such caps and a half: enough for the
    // twelve images while the fetch's four downloads at a time each hold a cap (a CI run saw three at once with
    // two and a half: one image found the budget spent), far from twelve queued caps (a tester's 60 images on one
    // host: 20 failed; here 3 of 12 were kept before the fix with two and a half).
    let limits = FullTextLimits(
      images: ImageLimits(maxBytesPerImage: 10 * image.count, maxBytesPerFetch: 45 * image.count))
    let report = await setup.repository.fetchFullText(for: saved, using: setup.transport, limits: limits)
    #expect(report.fetched == 12)
    #expect(report.imagesStored == 12, "\(report.imageFailures.map(\.reason))")
  }

  @Test("eviction and batch deletes remove an article's files; a bookmarked article keeps its own and shared ones")
  func evictionAndBookmarks() async throws {
    let setup = try ImageSetup(eviction: EvictionPolicy(maxArticles: 2))
    let bodies = [
      "/shared.png": TestImages.png(seed: 1), "/a.png": TestImages.png(seed: 2), "/b.png": TestImages.gif(),
    ]
    setup.server.router = { request in
      switch request.target {
      case "/a.html":
        return .respond(status: 200, headers: Self.html, body: storyPage("A", images: ["/a.png", "/shared.png"]))
      case "/b.html":
        return .respond(status: 200, headers: Self.html, body: storyPage("B", images: ["/b.png", "/shared.png"]))
      case "/c.html", "/d.html": return .respond(status: 200, headers: Self.html, body: storyPage("C", images: []))
      default:
        guard let body = bodies[request.target] else { return .respond(status: 404, body: Data()) }
        let type = request.target.hasSuffix(".gif") || request.target == "/b.png" ? "image/gif" : "image/png"
        return .respond(status: 200, headers: ["Content-Type": type], body: body)
      }
    }
    let saved = try await setup.save(["/a.html", "/b.html"], query: "/first")
    let report = await setup.repository.fetchFullText(for: saved, using: setup.transport)
    #expect(report.fetched == 2 && report.imagesStored == 4, "\(report.imageFailures)")
    let (a, b) = (saved[0], saved[1])
    let aImages = try await setup.repository.images(of: a)
    let bImages = try await setup.repository.images(of: b)
    #expect(setup.filesInFolder.count == 3, "one file for the image both share")
    let bFiles = bodies.filter { $0.key != "/a.png" }
    #expect(try await setup.files(of: b) == bFiles)
    try await setup.repository.bookmark(url: b.url.absoluteString)

    // Two newer articles: the cache keeps the two newest that are not bookmarked; A goes, B (bookmarked) stays.
    let newer = [
      Article(url: setup.server.url("/c.html"), title: "C", publishedAt: Date(timeIntervalSince1970: 1_800_000_000)),
      Article(url: setup.server.url("/d.html"), title: "D", publishedAt: Date(timeIntervalSince1970: 1_800_000_001)),
    ]
    let result = try await setup.repository.save(newer, for: NewsQuery(url: setup.server.url("/second")))
    #expect(result.evicted == 1)
    #expect(try await setup.repository.article(url: a.url.absoluteString) == nil)
    let aOnly = Set(aImages.map(\.file)).subtracting(bImages.map(\.file))
    #expect(aOnly.count == 1 && setup.filesInFolder.isDisjoint(with: aOnly), "A's own file went with it")
    #expect(setup.filesInFolder == Set(bImages.map(\.file)), "B keeps its files, the shared one included")
    #expect(try await setup.files(of: b) == bFiles)

    // A batch delete that keeps bookmarks keeps them; one that does not removes every file.
    try await setup.repository.delete(
      publishedBefore: Date(timeIntervalSince1970: 1_900_000_000), keepingBookmarks: true)
    #expect(setup.filesInFolder == Set(bImages.map(\.file)))
    try await setup.repository.deleteAll()
    #expect(setup.filesInFolder.isEmpty)
  }

  @Test("an interrupted download leaves no file under its final name, and a crash's temporary file is removed")
  func partialDownloads() async throws {
    let setup = try ImageSetup()
    let image = TestImages.png(width: 32, height: 32)
    setup.server.router = { request in
      switch request.target {
      case "/p.html":
        return .respond(status: 200, headers: Self.html, body: storyPage("P", images: ["/cut.png", "/reset.png"]))
      case "/cut.png": return .truncated(status: 200, body: image.prefix(100), declaredLength: image.count)
      case "/reset.png": return .resetMidBody(status: 200, body: image.prefix(100), declaredLength: image.count)
      default: return .respond(status: 404, body: Data())
      }
    }
    // What a crash in the middle of a write leaves: a temporary name (never a final one, which has no leading dot).
    try FileManager.default.createDirectory(at: setup.folder, withIntermediateDirectories: true)
    try image.prefix(50).write(to: setup.folder.appendingPathComponent(".partial-crashed"))
    let articles = try await setup.save(["/p.html"])
    let report = await setup.repository.fetchFullText(for: articles, using: setup.transport)
    #expect(report.fetched == 1 && report.imagesStored == 0 && report.imageFailures.count == 2)
    let images = try await setup.repository.images(of: articles[0])
    #expect(images.count == 2 && images.allSatisfy { !$0.isOffline && $0.error != nil })
    #expect(setup.filesInFolder == [".partial-crashed"], "nothing under a final name")
    #expect(await setup.repository.removeUnusedImages() == [".partial-crashed"])
    #expect(setup.filesInFolder.isEmpty)
  }
}
