import Foundation
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsSync
import TestSupport
import Testing

@Suite("Image formats by their signatures")
struct ImageFormatTests {
  static func bytes(_ values: [UInt8], _ text: String = "") -> Data { Data(values + Array(text.utf8)) }

  @Test(
    "each format is told by its first bytes",
    arguments: [
      (TestImages.png(), ImageFormat.png),
      (TestImages.gif(), .gif),
      (bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], "JFIF"), .jpeg),
      (bytes(Array("RIFF".utf8) + [0x24, 0, 0, 0], "WEBPVP8 "), .webp),
      (bytes([0, 0, 0, 0x1C], "ftypavif\0\0\0\0avifmif1miaf"), .avif),
      (bytes([0, 0, 0, 0x20], "ftypmif1\0\0\0\0mif1avifmiafMA1B"), .avif),
      (bytes([], "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), .svg),
      (bytes([0xEF, 0xBB, 0xBF], "<?xml version=\"1.0\"?>\n<!-- drawn -->\n<!DOCTYPE svg>\n<svg>"), .svg),
    ])
  func sniffed(data: Data, format: ImageFormat) {
    #expect(ImageFormat(sniffing: data) == format)
  }

  @Test(
    "what is no image is none",
    arguments: [
      Data(), Data("<html><body><img></body></html>".utf8), Data("GIF8".utf8), Data([0xFF, 0xD8]),
      Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8), Data([0, 0, 0, 0x18] + Array("ftypmp42\0\0\0\0isommp42".utf8)),
      Data("<?xml version=\"1.0\"?><svgfoo/>".utf8), Data("<!-- unterminated <svg>".utf8),
    ])
  func notAnImage(data: Data) {
    #expect(ImageFormat(sniffing: data) == nil)
  }

  @Test("a file store with image formats refuses bytes that are not one of them, whatever the Content-Type says")
  func storeChecksSignatures() async throws {
    let server = try LoopbackHTTPServer(.closeImmediately)
    defer { server.stop() }
    let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8)
    server.router = { request in
      switch request.target {
      case "/a.png": return .respond(status: 200, headers: ["Content-Type": "image/png"], body: TestImages.png())
      case "/page.png": return .respond(status: 200, headers: ["Content-Type": "image/png"], body: Data("<p>".utf8))
      default: return .respond(status: 200, headers: ["Content-Type": "image/svg+xml"], body: svg)
      }
    }
    let directory = TemporaryDirectory("image-store")
    let store = FileStore(
      folder: directory.url,
      policy: FileDownloads(attributes: [], allowedContentTypes: ["image/"], imageFormats: ImageFormat.raster),
      transport: CurlHTTPTransport(timeout: 10))
    let file = try await store.file(for: server.url("/a.png"))
    #expect(try Data(contentsOf: file) == TestImages.png())
    for (path, format) in [("/page.png", ImageFormat?.none), ("/b.svg", .svg)] {
      await #expect(throws: FileDownloadError.notAnImage(server.url(path), format)) {
        try await store.file(for: server.url(path))
      }
      #expect(!store.isStored(server.url(path)))
    }
    #expect(store.removeFiles(keeping: [file.lastPathComponent]).isEmpty)
    #expect(store.removeFiles(keeping: []) == [file.lastPathComponent])
  }
}
