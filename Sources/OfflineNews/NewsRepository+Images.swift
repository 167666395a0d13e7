import Foundation
import OfflineNewsHTML
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage
import OfflineNewsSync

/// Bounds on keeping the images of articles' whole texts offline (``NewsRepository/fetchFullText(for:using:limits:)``).
public struct ImageLimits: Sendable, Hashable {
  /// Images kept per article: the lead image first, then the content's in order (default 20); the rest stay remote.
  package var maxImagesPerArticle: Int
  /// The largest image kept, in bytes (default 5 MiB); a larger one is a failure, never a truncated file.
  package var maxBytesPerImage: Int
  /// The bytes of one article's images together (default 20 MiB).
  package var maxBytesPerArticle: Int
  /// The bytes of every image downloaded by one call (default 200 MiB).
  package var maxBytesPerFetch: Int
  /// The formats accepted, told by the bytes (``ImageFormat``), besides an `image/` `Content-Type`: the raster formats
  /// by default (JPEG, PNG, GIF, WebP, AVIF). SVG is refused by default: it is a document that may run scripts and
  /// load other resources when shown, so it would be neither offline nor private, and a terminal cannot show it.
  package var formats: Set<ImageFormat>

  /// Creates limits.
  public init(
    maxImagesPerArticle: Int = 20, maxBytesPerImage: Int = 5 << 20, maxBytesPerArticle: Int = 20 << 20,
    maxBytesPerFetch: Int = 200 << 20, formats: Set<ImageFormat> = ImageFormat.raster
  ) {
    self.maxImagesPerArticle = max(0, maxImagesPerArticle)
    self.maxBytesPerImage = max(0, maxBytesPerImage)
    self.maxBytesPerArticle = max(0, maxBytesPerArticle)
    self.maxBytesPerFetch = max(0, maxBytesPerFetch)
    self.formats = formats
  }
}

extension NewsRepository {
  /// The image folder's files, as a ``FileStore`` (names that cannot leave it); `nil` without ``imageFolder``.
  func imageStore(using transport: any HTTPTransport, maxBytes: Int = 0, formats: Set<ImageFormat>? = nil)
    -> FileStore?
  {
    imageFolder.map {
      FileStore(
        folder: $0,
        policy: FileDownloads(
          attributes: [], maxBytes: maxBytes, concurrency: 1, allowedContentTypes: ["image/"], imageFormats: formats,
          redirects: .anyOrigin),
        transport: transport)
    }
  }

  /// The local file of an image row, in ``imageFolder``; `nil` without one.
  package func imageFile(_ image: ArticleImage) -> URL? {
    imageFolder?.appendingPathComponent(image.file, isDirectory: false)
  }

  /// The image rows of an article's whole text (``ArticleImage``: stored, or why not), by position.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  package func images(of article: Article) async throws(NewsRepositoryError) -> [ArticleImage] {
    try await storing { try await storage.articleImages(forKey: article.url.absoluteString) }
  }

  /// Removes the files of ``imageFolder`` that no image row names any more (the articles were deleted or evicted;
  /// a bookmarked article is never evicted, so its files stay), and stray temporary files of interrupted downloads.
  /// Batch deletes and saves that evict call it; a store that cannot be read removes nothing.
  ///
  /// - Returns: the names of the files removed, sorted.
  @discardableResult
  package func removeUnusedImages() async -> [String] {
    guard let store = imageStore(using: NoTransport()), let kept = try? await storage.imageFileNames() else {
      return []
    }
    return store.removeFiles(keeping: kept)
  }

  /// Keeps the images of one article's whole text offline: the lead image (`lead`) and the images of `html` (in
  /// order, at most ``ImageLimits/maxImagesPerArticle``), each through `transport` as ``FileStore`` downloads it
  /// (status 200, an `image/` type and an accepted signature, its byte cap, written whole or not at all). The rows
  /// are noted first (so that a sweep keeps their files), then each image is fetched unless it is stored already,
  /// then the rows and the HTML relinked to the stored files are saved. A failed image is noted in its row (retried
  /// after ``FullTextLimits/retryAfter``); it never fails the article.
  ///
  /// - Returns: how many images are stored, and the failures' reasons.
  func keepImages(
    key: String, html: String, lead: URL?, transport: any HTTPTransport, limits: ImageLimits,
    limiter: HostLimiter, budget: ByteBudget
  ) async -> (stored: Int, failures: [String]) {
    guard let folder = imageFolder, let namer = imageStore(using: transport) else { return (0, []) }
    var remotes: [(url: URL, isLead: Bool)] = []
    var seen = Set<String>()
    if let lead, lead.isWebURL {
      remotes.append((lead, true))
      seen.insert(lead.absoluteString)
    }
    for url in HTMLImageLinks.sources(inHTML: html) where seen.insert(url.absoluteString).inserted {
      remotes.append((url, false))
    }
    remotes = Array(remotes.prefix(limits.maxImagesPerArticle))
    guard !remotes.isEmpty else { return (0, []) }

    let previous = Dictionary(
      ((try? await storage.articleImages(forKey: key)) ?? []).map { ($0.url.absoluteString, $0) },
      uniquingKeysWith: { first, _ in first })
    var rows = remotes.enumerated().map { position, remote in
      var row =
        previous[remote.url.absoluteString]
        ?? ArticleImage(url: remote.url, position: position, file: namer.localURL(for: remote.url).lastPathComponent)
      row.position = position
      row.isLead = remote.isLead
      return row
    }
    // Noted before any download, so that a sweep running meanwhile keeps their files.
    guard (try? await storage.saveArticleImages(rows, forKey: key)) == true else { return (0, []) }

    var articleLeft = limits.maxBytesPerArticle
    var failures: [String] = []
    for index in rows.indices {
      let file = folder.appendingPathComponent(rows[index].file, isDirectory: false)
      if rows[index].isOffline, let size = Self.fileSize(file) {
        articleLeft -= size
        continue
      }
      let wanted = min(limits.maxBytesPerImage, max(0, articleLeft))
      let remote = rows[index].url
      let host = remote.host ?? ""
      // The host's slot first, then the bytes: a download waiting for its slot holds none of the fetch's budget
      // (each of 60 images queued on one host held a whole image's cap, and the last 20 found the budget spent).
      if wanted > 0 { await limiter.acquire(host) }
      let cap = wanted > 0 ? budget.take(upTo: wanted) : 0
      let now = clock()
      rows[index].attemptedTimestamp = now
      guard cap > 0 else {
        if wanted > 0 { await limiter.release(host) }
        rows[index].error =
          wanted == 0
          ? "over the article's \(limits.maxBytesPerArticle)-byte image limit"
          : "over the \(limits.maxBytesPerFetch)-byte image limit of the fetch"
        failures.append(rows[index].error ?? "")
        continue
      }
      guard let store = imageStore(using: transport, maxBytes: cap, formats: limits.formats) else {
        budget.giveBack(cap)
        await limiter.release(host)
        break
      }
      let outcome: Result<URL, FileDownloadError>
      do {
        outcome = .success(try await store.file(for: remote))
      } catch {
        outcome = .failure(error)
      }
      await limiter.release(host)
      switch outcome {
      case .success(let local):
        let size = Self.fileSize(local) ?? 0
        budget.giveBack(cap - size)
        articleLeft -= size
        rows[index].byteCount = size
        rows[index].format = Self.format(of: local)?.rawValue
        rows[index].storedTimestamp = clock()
        rows[index].error = nil
      case .failure(let error):
        budget.giveBack(cap)
        var reason = error.reason
        if case .tooLarge = error, cap < limits.maxBytesPerImage {
          reason += cap < wanted ? " (the fetch's image limit)" : " (the article's image limit)"
        }
        rows[index].error = reason
        failures.append(reason)
      }
    }
    var files: [URL: URL] = [:]
    for row in rows where row.isOffline {
      files[row.url] = folder.appendingPathComponent(row.file, isDirectory: false)
    }
    let relinked = HTMLImageLinks.relinking(html, to: files)
    _ = try? await storage.saveArticleImages(rows, forKey: key, fullTextHTML: relinked)
    return (files.count, failures)
  }

  static func fileSize(_ file: URL) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
  }

  static func format(of file: URL) -> ImageFormat? {
    guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 64)).flatMap { ImageFormat(sniffing: $0) }
  }
}

/// A transport for file stores that only name or remove files: it never sends anything.
private struct NoTransport: HTTPTransport {
  func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    throw .unsupportedURL(NewsQuery.shown(request.url))
  }
}
