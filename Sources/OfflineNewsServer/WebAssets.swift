import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// The web reader's style sheet and script, served by the binary itself from `/assets/…` (no file to install, no
/// CDN): the pages' Content-Security-Policy allows only these (`style-src 'self'; script-src 'self'`), never inline
/// style or script.
public enum WebAssets {
  /// One asset: its bytes, type and entity tag.
  public struct Asset: Sendable {
    /// The file's bytes.
    public var data: Data
    /// Its `Content-Type`.
    public var type: String
    /// Its strong entity tag (`"…"`): a hash of the bytes, so that a new build's asset is fetched again.
    public var etag: String

    init(_ text: String, type: String) {
      data = Data(text.utf8)
      self.type = type
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in data {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
      }
      etag = "\"" + String(hash, radix: 16) + "\""
    }

    /// The version put in the asset's URL (`?v=…`), so that a page always loads the asset it was written for.
    public var version: String { etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
  }

  /// The assets by path.
  public static let assets: [String: Asset] = [
    "/assets/reader.css": Asset(WebAssets.css, type: "text/css; charset=utf-8"),
    "/assets/reader.js": Asset(WebAssets.script, type: "text/javascript; charset=utf-8"),
  ]

  /// The URL of an asset with its version, as pages link it.
  public static func url(_ path: String) -> String {
    assets[path].map { "\(path)?v=\($0.version)" } ?? path
  }

  /// Answers `GET /assets/…`: the asset with a year-long cache and its entity tag, `304` when `If-None-Match` names
  /// it, 404 for any other path.
  public static func response(to request: ServerRequest) -> ServerResponse {
    guard let asset = assets[request.path] else { return .text("not found", status: 404) }
    let headers: [(name: String, value: String)] = [
      (name: "ETag", value: asset.etag), (name: "Cache-Control", value: "public, max-age=31536000, immutable"),
      (name: "X-Content-Type-Options", value: "nosniff"),
    ]
    if let tags = request.header("if-none-match"),
      tags.split(separator: ",").contains(where: { $0.trimmingWhiteSpace == asset.etag })
    {
      return ServerResponse(status: 304, headers: headers)
    }
    return ServerResponse(status: 200, type: asset.type, data: asset.data, headers: headers)
  }
}
