import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel

/// The stored images of articles as the server serves them: at `/images/{handle}/{position}` (the article's
/// 16-hex-digit handle, the image's place among its images), and the article HTML the APIs and the web reader send,
/// sanitised with its images pointing there.
///
/// The request path never names a file: it names an article and a position, and the file is the one the store's
/// image row names (``NewsRepository/imageFile(_:)``), served only when its real path (symbolic links resolved) is
/// a regular file directly inside the real image folder — so no `..`, absolute name or link can leave it.
public enum ServedImages {
  /// The path prefix of the image route.
  public static let pathPrefix = "/images/"

  /// The path the server serves an article's stored image at.
  public static func path(handle: String, position: Int) -> String { "\(pathPrefix)\(handle)/\(position)" }

  /// The image files' content types by stored format; any other format is not served.
  static let contentTypes: [String: String] = [
    "png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "avif": "image/avif",
  ]

  /// The address → served path map of an article's stored images, for ``ArticleHTMLSanitizer/sanitize(_:base:images:remoteImages:)``:
  /// each stored image under its remote address and under the `file:` URL a stored full text links it by.
  ///
  /// - Parameters:
  ///   - prefix: put before each path (`http://127.0.0.1:8080` for a client that needs absolute URLs); empty for
  ///     the web reader.
  public static func links(
    of article: Article, in repository: NewsRepository, prefix: String = ""
  ) async -> [String: String] {
    guard let rows = try? await repository.images(of: article) else { return [:] }
    var links: [String: String] = [:]
    let handle = ArticleIdentity.handle(forKey: article.url.absoluteString)
    for row in rows where row.isOffline {
      let served = prefix + path(handle: handle, position: row.position)
      links[row.url.absoluteString] = served
      if let file = repository.imageFile(row) { links[file.absoluteString] = served }
    }
    return links
  }

  /// The lead image's served path, when it is stored.
  static func leadImage(of article: Article, in repository: NewsRepository) async -> String? {
    guard let rows = try? await repository.images(of: article),
      let lead = rows.first(where: { $0.isLead && $0.isOffline })
    else { return nil }
    return path(handle: ArticleIdentity.handle(forKey: article.url.absoluteString), position: lead.position)
  }

  /// Answers `GET /images/{handle}/{position}`: the stored file with its type, cached for a long time (an image's
  /// bytes never change under its path), or 404.
  public static func response(to path: String, repository: NewsRepository) async -> ServerResponse {
    let notFound = ServerResponse.text("not found", status: 404)
    guard path.hasPrefix(pathPrefix) else { return notFound }
    let parts = path.dropFirst(pathPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0].count == 16, parts[0].allSatisfy(\.isHexDigit),
      parts[1].count <= 4, parts[1].allSatisfy(\.isASCII), let position = Int(parts[1]), position >= 0
    else { return notFound }
    let handle = parts[0].lowercased()
    guard case .found(let article) = try? await repository.article(handleOrURL: handle),
      ArticleIdentity.handle(forKey: article.url.absoluteString) == handle,
      let rows = try? await repository.images(of: article),
      let row = rows.first(where: { $0.position == position && $0.isOffline }),
      let type = row.format.flatMap({ contentTypes[$0] }),
      let folder = repository.imageFolder, let file = repository.imageFile(row),
      let real = containedFile(file, in: folder)
    else { return notFound }
    return ServerResponse(
      status: 200,
      headers: [
        (name: "Content-Type", value: type), (name: "Cache-Control", value: "private, max-age=31536000, immutable"),
        (name: "X-Content-Type-Options", value: "nosniff"),
        (name: "Content-Security-Policy", value: "default-src 'none'; sandbox"),
      ],
      body: .file(real))
  }

  /// The real path of `file` when it is a regular file directly inside `folder` once every symbolic link of both is
  /// resolved; `nil` otherwise (a name with `/` or `..`, a link out of the folder, a folder, a missing file).
  static func containedFile(_ file: URL, in folder: URL) -> String? {
    let name = file.lastPathComponent
    guard !name.isEmpty, name != ".", name != "..", !name.hasPrefix("."),
      file.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path
    else { return nil }
    let realFolder = folder.resolvingSymlinksInPath().standardizedFileURL.path
    let realFile = file.resolvingSymlinksInPath().standardizedFileURL.path
    guard (realFile as NSString).deletingLastPathComponent == realFolder,
      let attributes = try? FileManager.default.attributesOfItem(atPath: realFile),
      attributes[.type] as? FileAttributeType == .typeRegular
    else { return nil }
    return realFile
  }
}

extension ServedLibrary {
  /// The HTML the server sends for an article's text: ``servedContent(of:)`` (its stored full text when there is
  /// one, else its content, else its summary), sanitised (``ArticleHTMLSanitizer``) with its stored images at the server's own paths.
  ///
  /// For example, the APIs' entry content: `await library.sanitizedContent(of: article, imagePrefix: baseURL,
  /// remoteImages: .keep)`.
  ///
  /// - Parameters:
  ///   - article: the article, as the repository read it.
  ///   - imagePrefix: put before the image paths (`http://127.0.0.1:8080`); empty for paths on the same server.
  ///   - remoteImages: what happens to images the store has no copy of.
  public func sanitizedContent(
    of article: Article, imagePrefix: String = "", remoteImages: ArticleHTMLSanitizer.RemoteImages = .replaceWithText
  ) async -> String {
    let html = servedContent(of: article)
    guard !html.isEmpty else { return "" }
    let images = await ServedImages.links(of: article, in: repository, prefix: imagePrefix)
    return ArticleHTMLSanitizer.sanitize(
      html, base: article.link ?? article.url, images: images, remoteImages: remoteImages)
  }
}
