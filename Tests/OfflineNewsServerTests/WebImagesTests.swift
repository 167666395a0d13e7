import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// `/images/{handle}/{position}`: the stored file of an image row, never a file outside the image folder.
@Suite struct WebImagesTests {
  @Test func pathsThatAreNotAnArticleAndAPositionAreNotFound() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    #expect(await fixture.get("/images/\(handle)/0").status == 200)
    #expect(await fixture.get("/images/\(handle.uppercased())/0").status == 200)
    for target in [
      "/images/../../etc/passwd", "/images/%2e%2e/%2e%2e/etc/passwd", "/images/\(handle)/0/../../../etc/passwd",
      "/images/\(handle)/..", "/images/\(handle)/-1", "/images/\(handle)/1", "/images/\(handle)/0x0",
      "/images/\(handle)", "/images/\(handle)/", "/images/terminal-0001.png",
      "/images/0000000000000000/0", "/images/\(handle)/99999999999999999999",
    ] {
      let response = await fixture.get(target)
      #expect(response.status == 404, "\(target)")
      if case .file = response.body { Issue.record("\(target) served a file") }
    }
  }

  @Test func aRowNamingAFileOutsideTheFolderOrALinkOutOfItIsNotServed() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    let key = fixture.story.url.absoluteString
    let outside = fixture.directory.url.appendingPathComponent("secret.png")
    try fixture.png.write(to: outside)
    let link = fixture.imageFolder.appendingPathComponent("link.png")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
    let inner = fixture.imageFolder.appendingPathComponent("sub", isDirectory: true)
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
    try fixture.png.write(to: inner.appendingPathComponent("deep.png"))
    let svg = fixture.imageFolder.appendingPathComponent("drawing.svg")
    try Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8).write(to: svg)
    let files = ["../secret.png", "link.png", "sub/deep.png", "sub", fixture.imageFolder.path + "/terminal-0001.png"]
    var rows = files.enumerated().map { index, file in
      ArticleImage(
        url: webURL("https://cdn.example/\(index).png"), position: index + 1, file: file, format: "png",
        storedAt: Timestamp(WebFixture.now))
    }
    rows.append(
      ArticleImage(
        url: webURL("https://cdn.example/drawing.svg"), position: 10, file: "drawing.svg", format: "svg",
        storedAt: Timestamp(WebFixture.now)))
    rows.append(
      ArticleImage(url: webURL("https://cdn.example/failed.png"), position: 11, file: "terminal-0001.png"))
    try await fixture.storage.saveArticleImages(rows, forKey: key)
    for position in [1, 2, 3, 4, 5, 10, 11] {
      let response = await fixture.get("/images/\(handle)/\(position)")
      #expect(response.status == 404, "position \(position)")
    }
    #expect(ServedImages.containedFile(link, in: fixture.imageFolder) == nil)
    #expect(ServedImages.containedFile(outside, in: fixture.imageFolder) == nil)
  }

  @Test func aLinkedImageFolderStillServesItsOwnFiles() async throws {
    let fixture = try await WebFixture()
    let alias = fixture.directory.url.appendingPathComponent("alias", isDirectory: true)
    try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: fixture.imageFolder)
    let file = alias.appendingPathComponent("terminal-0001.png")
    let real = try #require(ServedImages.containedFile(file, in: alias))
    #expect(FileManager.default.contents(atPath: real) == fixture.png)
  }

  @Test func theAPIsContentLinksStoredImagesAbsolutelyAndKeepsRemoteOnes() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    let html = await fixture.library.sanitizedContent(
      of: fixture.story, imagePrefix: "http://127.0.0.1:8080", remoteImages: .keep)
    let sources = SanitizedTree(html).elements.filter { $0.name == "img" }.map { $0["src"] }
    #expect(sources == ["http://127.0.0.1:8080/images/\(handle)/0", "https://elsewhere.example/tracker.gif"])
    // The web reader's: the same path on its own server, the remote image gone.
    let web = SanitizedTree(await fixture.library.sanitizedContent(of: fixture.story))
    #expect(web.elements.filter { $0.name == "img" }.map { $0["src"] } == ["/images/\(handle)/0"])
    #expect(!web.html.contains("file:"))
  }

  @Test func theImageResponseIsTypedAndSandboxed() async throws {
    let fixture = try await WebFixture()
    let response = await fixture.get("/images/\(WebFixture.handle(fixture.story))/0")
    #expect(response.header("X-Content-Type-Options") == "nosniff")
    #expect(response.header("Content-Security-Policy") == "default-src 'none'; sandbox")
    #expect(response.header("Cache-Control")?.contains("max-age=31536000") == true)
  }
}
