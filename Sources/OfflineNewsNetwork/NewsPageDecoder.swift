import Foundation
import OfflineNewsModel

/// Turns a response body into a page of articles: the one step between bytes and articles for every source.
///
/// ``NewsAPIDecoder`` decodes NewsAPI v2 bodies; the `OfflineNews` module's `ArticleDecoder` tells the formats a
/// source may send apart by their content (NewsAPI, JSON Feed, RSS, Atom, RDF) and hands each body to its one
/// decoder. A network (``HTTPNewsNetwork``, ``FileNewsNetwork``) is built with the decoder it uses.
public protocol NewsPageDecoder: Sendable {
  /// Decodes a whole body.
  ///
  /// - Parameters:
  ///   - data: the body, complete.
  ///   - origin: where it came from (the request's URL, or the file's `file:` URL): the scope of item ids and the
  ///     base of relative links.
  ///   - contentType: the response's `Content-Type` (its `charset` names the encoding of an XML body), if any.
  ///   - httpStatus: the HTTP status, or `nil` for a file.
  ///   - secrets: texts to redact from any error (API keys).
  /// - Throws: ``NewsNetworkError``: `.api`, `.httpStatus` for a non-2xx status, `.invalidResponse` for a body
  ///   that is not entirely of a known format (nothing of it is used).
  func decodePage(_ data: Data, origin: URL, contentType: String?, httpStatus: Int?, redacting secrets: [String])
    throws(NewsNetworkError) -> NewsPage
}

extension NewsAPIDecoder: NewsPageDecoder {
  /// Decodes a NewsAPI v2 body (see `decode(_:httpStatus:redacting:)`).
  public func decodePage(
    _ data: Data, origin: URL, contentType: String?, httpStatus: Int?, redacting secrets: [String]
  ) throws(NewsNetworkError) -> NewsPage {
    try decode(data, httpStatus: httpStatus, redacting: secrets, contentType: contentType)
  }
}
