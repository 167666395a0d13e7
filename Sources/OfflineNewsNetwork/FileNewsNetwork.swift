import Foundation
import OfflineNewsModel

/// A ``NewsNetwork`` that reads saved NewsAPI-format responses from disk (`file:` URLs).
///
/// It is how `news fetch` works on a machine with no network and no API key (the bundled sample), and how
/// `news import` reads a file: through the same seam and the same decoder as the real network, so a file gets
/// exactly the validation an HTTP response gets.
public struct FileNewsNetwork: NewsNetwork {
  private let decoder: any NewsPageDecoder

  /// A network over files, decoding each with `decoder` (NewsAPI v2 by default).
  public init(decoder: any NewsPageDecoder = NewsAPIDecoder()) {
    self.decoder = decoder
  }

  /// Reads and decodes the file at `query.url` (a `file:` URL).
  ///
  /// - Throws: ``NewsNetworkError/unreadableFile(path:reason:)`` when the file cannot be read;
  ///   ``NewsNetworkError/unsupportedURL(_:)`` for a URL that is not a `file:` URL; decoding errors as
  ///   `NewsAPIDecoder/decode(_:httpStatus:redacting:)` throws them.
  public func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    guard query.url.isFileURL else { throw .unsupportedURL(query.cacheKey) }
    let path = query.url.path
    let data: Data
    do {
      data = try Data(contentsOf: query.url)
    } catch {
      let reason: String
      if !FileManager.default.fileExists(atPath: path) {
        reason = "no such file"
      } else if FileManager.default.fileExists(atPath: path + "/.") {
        reason = "is a directory"
      } else {
        reason = "cannot be read (permissions?)"
      }
      throw .unreadableFile(path: path, reason: reason)
    }
    return try decoder.decodePage(data, origin: query.url, contentType: nil, httpStatus: nil, redacting: [])
  }
}
