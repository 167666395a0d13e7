import Foundation
import OfflineNews
import OfflineNewsHTML
import OfflineNewsModel
import OfflineNewsStorage

/// `news show URL`: one cached article in full, marked read. No network.
struct ShowCommand: NewsCommand {
  static let name = "show"
  static let summary = "Show one cached article in full (and mark it read), offline."
  static let positionals = [
    PositionalSpec(
      name: "HANDLE|URL", help: "The article's handle, as `news list` and `news search` print it, or its URL.")
  ]
  static let details = """
    Prints the title, source, author, publication time, then the summary and content rendered as text
    (HTML as a reader sees it: paragraphs, headings, lists, quotes, links as numbered references listed after
    it, entities decoded) wrapped to the terminal, then the image URL and link, and which images of the whole
    article are offline (the file in the image folder beside the database) or why not; when fetching the whole
    article failed, what failed, when, and when news fetch --full-text tries it again (--retry-failed: now).
    --json prints the stored
    values unchanged. NewsAPI keeps only the first 200 characters of the content; the link leads to the whole article.
    On a store the user may only read, the article is shown and a note says the read mark was not saved.
    Exit status: 0 shown, 64 a handle several articles share, 66 no cached article has this handle or URL, or
    no database at the path (nothing is created), 74 storage error.
    """

  typealias Option = NoOption
  static let storeOptions = StoreOptions<Option>(
    json:
      "{url, title, author, summary, …, isRead, bookmarked, images: [{url, lead, offline, file, bytes, format, error}], "
      + "fullTextFailure}")

  /// The article's fields as `list --json` prints them, plus its local state.
  static func document(_ article: Article, images: [ShownImage], fullTextFailure: ShownFailure?) -> some Encodable {
    Merged(
      OutputFormat.ArticleDocument(article: article),
      LocalState(
        isRead: article.isRead, bookmarked: article.isBookmarked, images: images, fullTextFailure: fullTextFailure))
  }

  /// The members ``document(_:images:fullTextFailure:)`` adds to the article's.
  private struct LocalState: Encodable {
    var isRead: Bool
    var bookmarked: Bool
    var images: [ShownImage]
    var fullTextFailure: ShownFailure?
  }

  /// Why the whole article is not stored (``FullTextFailure``): `{reason, httpStatus, failedAt, retryAfter}`, times
  /// in RFC 3339 UTC, `httpStatus` `null` unless the server answered with an error status.
  struct ShownFailure: Encodable {
    var reason: String
    var httpStatus: Int?
    var failedAt: String
    var retryAfter: String

    init(_ failure: FullTextFailure) {
      reason = failure.cause.description
      if case .httpStatus(let status) = failure.cause { httpStatus = status }
      failedAt = Timestamp(failure.failedAt).rfc3339String
      retryAfter = Timestamp(failure.retryAfter).rfc3339String
    }

    enum CodingKeys: String, CodingKey { case reason, httpStatus, failedAt, retryAfter }

  }

  /// An image of the whole article: its remote address, whether it is offline, and where (or why not).
  struct ShownImage: Encodable {
    var url: String
    var lead: Bool
    /// Stored and its file present.
    var offline: Bool
    /// The file's absolute path, when it is offline.
    var file: String?
    var bytes: Int?
    var format: String?
    /// Why it is not offline (`nil` when it is).
    var error: String?

    init(_ image: ArticleImage, file: URL?) {
      url = image.url.absoluteString
      lead = image.isLead
      let present = image.isOffline && file.map { FileManager.default.fileExists(atPath: $0.path) } == true
      offline = present
      self.file = present ? file?.path : nil
      bytes = present ? image.byteCount : nil
      format = present ? image.format : nil
      error =
        present
        ? nil : image.isOffline ? "the file is gone from the image folder" : image.error ?? "not fetched yet"
    }

    enum CodingKeys: String, CodingKey { case url, lead, offline, file, bytes, format, error }

  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let (named, repository) = try await context.article(
      arguments.positionals.first, command: Self.name, store: arguments.common, reading: true)
    var article = named
    // A store the user may only read still shows the article: the read mark is what cannot be saved.
    do {
      try await repository.markRead(true, url: article.url.absoluteString)
      article.isRead = true
    } catch {
      guard repository.readOnlyCause != nil || Self.isReadOnly(error) else { throw error }
      context.console.err("news: the read mark was not saved: the store is read-only\n")
    }
    let images = try await repository.images(of: article).map { ShownImage($0, file: repository.imageFile($0)) }
    let failure = article.fullTextHTML == nil ? try await repository.fullTextFailure(of: article) : nil
    let related = try await repository.relatedRecords(ofArticleKey: article.url.absoluteString)
    let console = context.console
    if arguments.json {
      console.out(
        OutputFormat.json(Self.document(article, images: images, fullTextFailure: failure.map(ShownFailure.init))))
      return .success
    }
    let now = context.now()
    let note = failure.map {
      OutputFormat.fullTextFailureNote(
        $0, fetch: context.fullTextCommand(for: article), now: now, zone: context.timeZone)
    }
    console.out(
      Self.render(
        article, images: images, related: related, fullTextNote: note, now: now, width: console.width,
        color: console.color))
    return .success
  }

  /// Whether `error` says the store cannot be written (a read-only file, folder or file system).
  static func isReadOnly(_ error: NewsRepositoryError) -> Bool {
    guard case .storage(let storageError, _) = error else { return false }
    return storageError.kind == .readOnly
  }

  /// The article as text: the title, a line of source · author · time, then the summary and the content rendered
  /// from their HTML by ``HTMLTextRenderer`` (wrapped to `width`, at most 100 columns, when there is one; one list
  /// of link references for both), then the image URL and the link, then which images are offline, then whether
  /// the whole article is stored, or `fullTextNote` (why not: ``OutputFormat/fullTextFailureNote(_:fetch:now:zone:)``).
  /// `related`: what a mapping's relationships link it to (``NewsRepository/relatedRecords(ofArticleKey:)``), a line
  /// each, after its tags.
  static func render(
    _ article: Article, images: [ShownImage] = [], related: [RelatedRecords] = [], fullTextNote: String? = nil,
    now: Date, width: Int?, color: Bool
  ) -> String {
    let style = TextStyle(enabled: color)
    func clean(_ text: String?) -> String? {
      guard let text else { return nil }
      let cleaned = OutputFormat.sanitized(text, collapsingWhitespace: true)
      return cleaned.isEmpty ? nil : cleaned
    }
    let published = Timestamp(article.publishedAt)
    let when = "\(OutputFormat.relative(article.publishedAt, now: now)) (\(published.rfc3339String))"
    let source = clean(OutputFormat.displaySource(article))
    let author = clean(article.author).flatMap { $0 == source ? nil : $0 }  // "BBC News · BBC News" says it once
    let byline = [source, author, when].compactMap { $0 }.joined(separator: " · ")
    var text = style.apply(.bold, wrap(clean(article.title) ?? "", width)) + "\n"
    text += style.apply(.dim, wrap(byline, width)) + "\n"
    var marks: [String] = []
    if article.isBookmarked { marks.append("bookmarked") }
    // The whole article when its page was fetched (`news fetch --full-text`), else what the source sent.
    let fragments = (article.fullTextHTML.map { [$0] } ?? [article.summary, article.content].compactMap { $0 })
      .filter { !$0.allSatisfy(\.isWhitespace) }
    let body = HTMLTextRenderer(width: OutputFormat.readingWidth(width)).render(
      htmlFragments: fragments, baseURL: article.displayURL ?? article.url)
    if !body.isEmpty { text += "\n" + OutputFormat.sanitizedLines(body) }
    text += "\n"
    if let image = article.imageURL { text += "image  " + OutputFormat.sanitized(image.absoluteString) + "\n" }
    if let link = article.displayURL {
      text += "link   " + style.apply(.cyan, OutputFormat.sanitized(link.absoluteString)) + "\n"
    }
    if let origin = article.source {
      // Whole, as the link is: a path or URL to copy (`news list --source PATH`), never cut to the width; a URL
      // without its password (`NewsQuery.shown`).
      text += "source " + OutputFormat.sanitized(NewsQuery.shown(origin)) + "\n"
    }
    if !article.tags.isEmpty { text += "tags   " + OutputFormat.sanitized(article.tags.joined(separator: ", ")) + "\n" }
    for link in related {
      let label = OutputFormat.sanitized(link.relationship, collapsingWhitespace: true)
      text +=
        label + String(repeating: " ", count: max(1, 7 - label.count))
        + OutputFormat.sanitized(link.labels.joined(separator: ", "), collapsingWhitespace: true) + "\n"
    }
    for enclosure in article.enclosures {
      let detail = [enclosure.type, enclosure.length.map { "\($0) bytes" }].compactMap { $0 }.joined(separator: ", ")
      text +=
        "file   " + OutputFormat.sanitized(enclosure.url.absoluteString) + (detail.isEmpty ? "" : " (\(detail))") + "\n"
    }
    if !images.isEmpty {
      let offline = images.filter(\.offline)
      text += "images \(offline.count) of \(images.count) offline" + "\n"
      for image in images {
        let lead = image.lead ? "lead image, " : ""
        if let file = image.file {
          let detail = [image.bytes.map { "\($0) bytes" }, image.format].compactMap { $0 }.joined(separator: ", ")
          text += "  offline  " + OutputFormat.sanitized(file) + " (\(lead)\(detail))\n"
        } else {
          text +=
            "  remote   " + OutputFormat.sanitized(image.url) + " (\(lead)"
            + OutputFormat.sanitized(image.error ?? "", collapsingWhitespace: true) + ")\n"
        }
      }
    }
    if !marks.isEmpty { text += "state  " + marks.joined(separator: ", ") + "\n" }
    if let fetched = article.fullTextAt, article.fullTextHTML != nil {
      text += style.apply(.dim, "the whole article, fetched \(OutputFormat.relative(fetched, now: now))") + "\n"
    } else if let fullTextNote {
      text += style.apply(.dim, wrap(fullTextNote, width)) + "\n"
    } else if article.displayURL != nil {
      text +=
        style.apply(
          .dim, wrap("only what the source sent is cached; news fetch --full-text fetches the whole article", width))
        + "\n"
    }
    return text
  }

  /// `text` broken into lines of at most `width` display columns (at most 100) by ``LineWrapper``: at spaces,
  /// around wide characters, a word longer than a line cut between characters. Unchanged without a width.
  static func wrap(_ text: String, _ width: Int?) -> String {
    guard let limit = OutputFormat.readingWidth(width) else { return text }
    return LineWrapper(width: limit).wrap(text).joined(separator: "\n")
  }
}
