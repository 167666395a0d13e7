import Foundation
import OfflineNewsModel

/// A ``NewsNetwork`` that reads saved responses and feeds from disk (`file:` URLs).
///
/// It is how `news fetch` works on a machine with no network and no API key (the bundled sample): through the same
/// seam and the same decoder as the real network, so a file gets exactly the validation an HTTP response gets.
/// `FileNewsNetwork()` (declared in `OfflineNews`) reads every format `HTTPNewsNetwork` reads from a `file:`
/// URL — NewsAPI v2, RSS, RDF, Atom, JSON Feed — with `ArticleDecoder`; `FileNewsNetwork(decoder: NewsAPIDecoder())`
/// reads NewsAPI v2 only.
public struct FileNewsNetwork: NewsNetwork {
  private let decoder: any NewsPageDecoder

  /// A network over files, decoding each with `decoder`.
  public init(decoder: any NewsPageDecoder) {
    self.decoder = decoder
  }

  /// Reads and decodes the file at `query.url` (a `file:` URL).
  ///
  /// - Throws: ``NewsNetworkError/unreadableFile(path:reason:)`` when the file cannot be read (the reason from
  ///   `errno`: no such file, is a directory, permission denied); ``NewsNetworkError/tooLarge(bytes:limit:)`` for a
  ///   file over ``NewsRequest/maximumBodySize``, by its size, before it is read;
  ///   ``NewsNetworkError/unsupportedURL(_:)`` for a URL that is not a `file:` URL; decoding errors as the
  ///   decoder throws them.
  public func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    guard query.url.isFileURL else { throw .unsupportedURL(query.description) }
    let path = query.url.path
    let data: Data
    do {
      data = try LocalFile.read(path, maxBytes: NewsRequest.maximumBodySize)
    } catch {
      if error.isTooLarge {
        throw .tooLarge(bytes: error.size.map { Int($0) }, limit: NewsRequest.maximumBodySize)
      }
      throw .unreadableFile(path: path, reason: error.reason)
    }
    return try decoder.decodePage(data, origin: query.url, contentType: nil, httpStatus: nil, redacting: [])
  }
}
