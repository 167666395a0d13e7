import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// Decodes NewsAPI v2 responses (`/v2/top-headlines`, `/v2/everything`) into a ``NewsPage``.
///
/// The response shape is `{"status":"ok","totalResults":N,"articles":[{"source":{"id","name"},"author","title",
/// "description","url","urlToImage","publishedAt","content"}]}` (<https://newsapi.org/docs/endpoints>).
///
/// The whole body must be valid JSON of that shape, or decoding throws: a truncated body is an error, never a
/// partial page. Inside a valid body, each record is judged alone:
/// - skipped, with a ``RecordIssue``: a record that is not an object; a missing, empty or non-`http(s)` `url`; a
///   missing or blank `title`; a missing or unparseable `publishedAt`; NewsAPI's `[Removed]` placeholders;
/// - kept: `null`, `""` or blank text → `nil`; a bad `urlToImage` → `nil`, reported; the title without the white
///   space around it (`ArticleTitle.given`), other text as sent;
/// - `publishedAt` in any RFC 3339 shape (`Z`, `+00:00`, 0–9 fraction digits) or without seconds, kept to the
///   millisecond (see `Timestamp.init(iso8601:assumingOffset:)`); without an offset it is UTC, as NewsAPI documents;
/// - a URL seen twice: the later record wins, at the earlier one's place, reported.
///
/// A body with `"status":"error"` throws ``NewsNetworkError/api(_:)`` whatever the HTTP status.
public struct NewsAPIDecoder: Sendable {
  /// A decoder of NewsAPI v2 responses.
  public init() {}

  /// Decodes `data`, the body of a response that had HTTP status `httpStatus` (`nil` for a file).
  ///
  /// `secret` (the API key), when given, is replaced by `<redacted>` in every text an error carries, before any
  /// text is cut to length, so that not even part of it can leak.
  ///
  /// - Throws: ``NewsNetworkError/api(_:)`` for a NewsAPI error body; ``NewsNetworkError/httpStatus(_:bodyPrefix:)``
  ///   for a non-2xx status with any other body; ``NewsNetworkError/invalidResponse(detail:)`` for a body that is not
  ///   JSON, is truncated, or does not have the shape above (the detail says where).
  package func decode(_ data: Data, httpStatus: Int? = nil, redacting secret: String? = nil) throws(NewsNetworkError)
    -> NewsPage
  {
    try decode(data, httpStatus: httpStatus, redacting: secret.map { [$0] } ?? [])
  }

  /// Decodes `data` as the single-secret `decode(_:httpStatus:redacting:)` does, redacting every one of `secrets`
  /// (for instance a key sent in a header and another written in the URL) before any text is cut to length.
  ///
  /// `contentType` is the response's `Content-Type` header, when there was one: an error about a web page or an XML
  /// document says what it is, with the content type and the size, instead of quoting its first characters (see
  /// ``prefix(of:redacting:contentType:)``).
  ///
  /// - Throws: as the single-secret form.
  package func decode(
    _ data: Data, httpStatus: Int? = nil, redacting secrets: [String], contentType: String? = nil
  ) throws(NewsNetworkError) -> NewsPage {
    let envelope: DecodedEnvelope
    do {
      envelope = try Self.decodeEnvelope(data)
    } catch {
      if let status = httpStatus, !(200..<300).contains(status) {
        throw .httpStatus(status, bodyPrefix: Self.prefix(of: data, redacting: secrets, contentType: contentType))
      }
      // Markup is named first: "not valid JSON" would read as a broken JSON file, which a web page is not.
      if let markup = ResponseBodySummary.markupProblem(data, contentType: contentType, suffix: ", not JSON") {
        throw .invalidResponse(markup)
      }
      if let other = ResponseBodySummary.nonTextProblem(data, prefix: "not valid JSON: ") {
        throw .invalidResponse(other)
      }
      throw .invalidResponse(Self.problem(of: data, error, size: data.count))
    }
    if envelope.status == "error" {
      throw .api(
        NewsAPIError(
          code: .init(rawValue: envelope.code ?? "unknown"), message: envelope.message ?? "", httpStatus: httpStatus))
    }
    if let status = httpStatus, !(200..<300).contains(status) {
      throw .httpStatus(status, bodyPrefix: Self.prefix(of: data, redacting: secrets, contentType: contentType))
    }
    guard envelope.status == "ok" else {
      let shown = envelope.status.map { "\"\($0)\"" } ?? "missing"
      throw .invalidResponse(BodyProblem(.wrongShape, "\"status\" is \(shown), expected \"ok\" or \"error\""))
    }
    guard let records = envelope.articles else {
      throw .invalidResponse(BodyProblem(.wrongShape, "no \"articles\" array in a \"status\":\"ok\" response"))
    }

    var articles: [Article] = []
    var issues: [RecordIssue] = []
    var positionByURL: [String: Int] = [:]
    for (index, (record, recordIssues)) in records.enumerated() {
      issues += recordIssues
      switch record {
      case .none: continue
      case .some(let article):
        let key = article.url.absoluteString
        if let earlier = positionByURL[key] {
          articles[earlier] = article
          issues.append(
            RecordIssue(
              index: index, url: key, keyPath: "articles[\(index)].url",
              reason: "same url as an earlier record in this response, which this later one replaces",
              outcome: .replacedEarlier))
        } else {
          positionByURL[key] = articles.count
          articles.append(article)
        }
      }
    }
    return NewsPage(articles: articles, issues: issues, totalResults: envelope.totalResults)
  }

  // MARK: - Decoding, in parallel chunks for large bodies

  /// The envelope with its records already mapped (each to an article or nothing, with its issues), in order.
  struct DecodedEnvelope {
    var status: String?
    var code: String?
    var message: String?
    var totalResults: Int?
    var articles: [(Article?, [RecordIssue])]?
  }

  /// Bodies at least this large are decoded in chunks on every core.
  static let parallelThreshold = 512 * 1024

  static func decodeEnvelope(_ data: Data) throws -> DecodedEnvelope {
    if data.count >= parallelThreshold, let decoded = try decodeInParallel(data) { return decoded }
    let envelope = try JSONDecoder().decode(Envelope.self, from: data)
    return DecodedEnvelope(
      status: envelope.status, code: envelope.code, message: envelope.message, totalResults: envelope.totalResults,
      articles: envelope.articles.map { records in
        records.enumerated().map { index, record in
          var issues: [RecordIssue] = []
          return (article(from: record, index: index, issues: &issues), issues)
        }
      })
  }

  /// Splits the `articles` array into one chunk per core, decodes and maps the chunks concurrently, and decodes the
  /// rest of the envelope alone. `nil` when the body is not shaped for it (the caller then decodes it whole).
  static func decodeInParallel(_ data: Data) throws -> DecodedEnvelope? {
    try data.withUnsafeBytes { raw -> DecodedEnvelope? in
      let bytes = raw.bindMemory(to: UInt8.self)
      guard let layout = ArticleArrayScanner.scan(bytes), layout.elements.count > 1 else { return nil }
      var envelopeBytes = Data(bytes[..<layout.array.lowerBound])
      envelopeBytes.append(contentsOf: Array("[]".utf8))
      envelopeBytes.append(contentsOf: bytes[layout.array.upperBound...])
      let envelope = try JSONDecoder().decode(Envelope.self, from: envelopeBytes)

      let chunkCount = min(layout.elements.count, max(1, ProcessInfo.processInfo.activeProcessorCount) * 2)
      let chunkSize = (layout.elements.count + chunkCount - 1) / chunkCount
      let results = ChunkResults(count: chunkCount)
      // The buffer outlives concurrentPerform (which returns after every iteration) and is only read.
      nonisolated(unsafe) let shared = bytes
      DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
        let first = chunk * chunkSize
        let last = min(first + chunkSize, layout.elements.count)
        guard first < last else {
          results.set(chunk, .success([]))
          return
        }
        // The usual record is parsed from its bytes (RawArticleScanner); any other is left to JSONDecoder, alone.
        var records: [RawArticle] = []
        records.reserveCapacity(last - first)
        do {
          for index in first..<last { try RawArticleScanner.append(shared, layout.elements[index], to: &records) }
        } catch {
          return results.set(chunk, .failure(error))
        }
        results.set(
          chunk,
          .success(
            records.enumerated().map { offset, record in
              var issues: [RecordIssue] = []
              return (article(from: record, index: first + offset, issues: &issues), issues)
            }))
      }
      var articles: [(Article?, [RecordIssue])] = []
      articles.reserveCapacity(layout.elements.count)
      for result in results.all() {
        // A chunk that does not decode: let the whole-body decode report the precise place.
        guard case .success(let chunk) = result else { return nil }
        articles += chunk
      }
      return DecodedEnvelope(
        status: envelope.status, code: envelope.code, message: envelope.message, totalResults: envelope.totalResults,
        articles: articles)
    }
  }

  // MARK: - Record rules

  static let removedPlaceholder = "[Removed]"

  /// The UTC offset of a `publishedAt` written without one: 0, since NewsAPI's dates are UTC ("The date and time
  /// that the article was published, in UTC (+000)": <https://newsapi.org/docs/endpoints/everything>). The shipped
  /// `newsapi` mapping says the same (`"assumeOffset": "Z"` on `publishedAt`).
  static let newsAPIOffset = 0

  static func article(from record: RawArticle, index: Int, issues: inout [RecordIssue]) -> Article? {
    // Written only for a record with an issue: the key path is not built for every record (the usual one has none).
    func path() -> String { "articles[\(index)]" }
    func skip(_ key: String, _ reason: String, url: String? = nil) -> Article? {
      issues.append(
        RecordIssue(
          index: index, url: url, keyPath: key.isEmpty ? path() : "\(path()).\(key)", reason: reason,
          outcome: .recordSkipped))
      return nil
    }
    guard record.isObject else { return skip("", "not a JSON object") }
    let urlText = record.url.flatMap(nonBlank)
    for (key, field) in record.wrongTypes {
      let expected = key == "source" ? "an object or null" : "a string or null"
      return skip(key, "expected \(expected), found \(field)", url: urlText)
    }
    guard let urlText else { return skip("url", "missing url") }
    if record.title == removedPlaceholder || urlText == "https://removed.com" {
      return skip("", "NewsAPI [Removed] placeholder", url: urlText)
    }
    guard let url = webURL(urlText) else { return skip("url", "not an http(s) URL: \(quoted(urlText))", url: urlText) }
    guard let title = ArticleTitle.given(record.title) else { return skip("title", "missing title", url: urlText) }
    guard let dateText = record.publishedAt.flatMap(nonBlank) else {
      return skip("publishedAt", "missing publishedAt", url: urlText)
    }
    guard let published = Timestamp(iso8601: dateText, assumingOffset: newsAPIOffset) else {
      return skip("publishedAt", "not an RFC 3339 date-time: \(quoted(dateText))", url: urlText)
    }
    var imageURL: URL?
    if let imageText = record.urlToImage.flatMap(nonBlank) {
      imageURL = webURL(imageText)
      if imageURL == nil {
        issues.append(
          RecordIssue(
            index: index, url: urlText, keyPath: "\(path()).urlToImage",
            reason: "not an http(s) URL: \(quoted(imageText))", outcome: .valueDropped))
      }
    }
    return Article(
      url: url, title: title, author: record.author.flatMap(nonBlank), summary: record.description.flatMap(nonBlank),
      imageURL: imageURL, publishedAt: published.date, content: record.content.flatMap(nonBlank),
      sourceID: record.sourceID.flatMap(nonBlank), sourceName: record.sourceName.flatMap(nonBlank))
  }

  /// `text` if it has any non-whitespace character, else `nil`. Text is kept as sent (not trimmed).
  static func nonBlank(_ text: String) -> String? {
    // Fast path: a first scalar that is not whitespace (almost every value) decides at once.
    if let first = text.unicodeScalars.first, !first.isWhiteSpace { return text }
    return text.unicodeScalars.contains(where: { !$0.isWhiteSpace }) ? text : nil
  }

  /// An absolute `http`/`https` URL with a host, or `nil`.
  static func webURL(_ text: String) -> URL? {
    let trimmed = text.trimmingWhiteSpace
    // Cheap refusal before URL parsing: only http(s) URLs are wanted.
    guard trimmed.utf8.count > 8, trimmed.utf8.first == UInt8(ascii: "h") || trimmed.utf8.first == UInt8(ascii: "H")
    else { return nil }
    guard let url = URL(string: trimmed), url.isWebURL
    else { return nil }
    return url
  }

  static func quoted(_ text: String) -> String {
    let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
    return "\"\(shown)\""
  }

  /// The first 200 characters of a body, on one line, with every one of `secrets` redacted first.
  /// What an error says of a body it does not use: for markup (an HTML page, an XML document), a summary with its
  /// content type and size (``ResponseBodySummary``); otherwise its first 200 characters on one line, with every
  /// secret redacted.
  static func prefix(of data: Data, redacting secrets: [String], contentType: String? = nil) -> String {
    if let markup = ResponseBodySummary.markup(data, contentType: contentType) { return markup }
    // Redact the whole (bounded) head before cutting, so a key straddling the cut cannot leak in part.
    let text = Redaction.redacted(String(decoding: data.prefix(64 * 1024), as: UTF8.self), secrets: secrets)
    let oneLine = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhiteSpace }
      .joined(separator: " ")
    return oneLine.count > 200 ? String(oneLine.prefix(200)) + "…" : oneLine
  }

  /// The words every truncated body or file is reported with: it starts ``truncatedPrefix``.
  package static let truncatedPrefix = "not valid JSON: truncated: "

  /// `not valid JSON: truncated: …` when `data` is JSON that stops before its end — inside a string, or with objects or
  /// arrays still open (RFC 8259 §2: every `{` and `[` outside a string has its `}` or `]`) — else `nil` (not JSON
  /// at all, or complete but of the wrong shape: ``describe(_:size:)`` says which). What a cut-off download or file
  /// is, which no mapping reads. `size` is the whole body's or file's (`data.count` by default).
  package static func truncation(of data: Data, size: Int? = nil) -> String? {
    // JSON text that is cut starts as JSON text does (RFC 8259 §2: white space, then `{` or `[` here): brackets in
    // bytes that are not JSON (binary junk, a compressed file) say nothing of a cut.
    let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
    guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }),
      first == 0x7B || first == 0x5B
    else { return nil }
    var open = 0
    var inString = false
    var escaped = false
    var sawValue = false
    for byte in data {
      if inString {
        if escaped {
          escaped = false
        } else if byte == 0x5C {
          escaped = true
        } else if byte == 0x22 {
          inString = false
        }
        continue
      }
      switch byte {
      case 0x22: inString = true
      case 0x7B, 0x5B:
        open += 1
        sawValue = true
      case 0x7D, 0x5D:
        // A closing bracket that closes nothing: not a cut, another error.
        guard open > 0 else { return nil }
        open -= 1
      default: break
      }
    }
    guard sawValue, inString || open > 0 else { return nil }
    return truncated(size: size ?? data.count)
  }

  /// The message of a truncated body or file of `size` bytes (``truncation(of:size:)``, and `NewsAPIFileStream`,
  /// which says the same of a file that ends inside its `"articles"` array).
  package static func truncated(size: Int) -> String {
    truncatedPrefix + "it ends after \(size) bytes with objects or arrays still open: a cut-off download or file"
  }

  /// The problem of JSON that `error` (a `JSONDecoder` error) refused: ``BodyProblem/Kind/truncated`` when `data` is
  /// cut off (``truncation(of:size:)``), ``BodyProblem/Kind/invalidJSON`` when it is not JSON at all, else
  /// ``BodyProblem/Kind/wrongShape`` (``describe(_:size:)``).
  package static func problem(of data: Data, _ error: any Error, size: Int) -> BodyProblem {
    if let cut = truncation(of: data, size: size) { return BodyProblem(.truncated, cut) }
    return describedProblem(error, size: size)
  }

  /// ``describe(_:size:)`` as a problem: not JSON at all (``BodyProblem/Kind/invalidJSON``) or JSON of the wrong
  /// shape (``BodyProblem/Kind/wrongShape``).
  package static func describedProblem(_ error: any Error, size: Int) -> BodyProblem {
    let notJSON: Bool
    if case .dataCorrupted(let context) = error as? DecodingError, context.codingPath.isEmpty {
      notJSON = true
    } else {
      notJSON = !(error is DecodingError)
    }
    return BodyProblem(notJSON ? .invalidJSON : .wrongShape, describe(error, size: size))
  }

  static func describe(_ error: any Error, size: Int) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func at(_ path: [any CodingKey]) -> String {
      path.isEmpty
        ? "the top level"
        : path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
          .trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
    switch error {
    case .dataCorrupted(let context):
      if context.codingPath.isEmpty { return "not valid JSON (\(size) bytes; truncated or not JSON)" }
      return "invalid value at \(at(context.codingPath)): \(context.debugDescription)"
    case .keyNotFound(let key, let context): return "missing key \"\(key.stringValue)\" at \(at(context.codingPath))"
    case .typeMismatch(let type, let context):
      let expected =
        "\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)".hasPrefix("Array") ? "an array" : "\(type)"
      if context.codingPath.isEmpty {
        return "the top level is not a NewsAPI response object ({\"status\":…,\"articles\":[…]})"
      }
      return "expected \(expected) at \(at(context.codingPath))"
    case .valueNotFound(let type, let context): return "expected \(type), found null at \(at(context.codingPath))"
    @unknown default: return "\(error)"
    }
  }
}

// MARK: - Wire format

struct Envelope: Decodable {
  var status: String?
  var code: String?
  var message: String?
  var totalResults: Int?
  var articles: [RawArticle]?

  enum CodingKeys: String, CodingKey { case status, code, message, totalResults, articles }

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    status = try? c.decodeIfPresent(String.self, forKey: .status)
    code = try? c.decodeIfPresent(String.self, forKey: .code)
    message = try? c.decodeIfPresent(String.self, forKey: .message)
    totalResults = try? c.decodeIfPresent(Int.self, forKey: .totalResults)
    articles = try c.decodeIfPresent([RawArticle].self, forKey: .articles)
  }
}

/// One element of `articles`, decoded without ever failing, so one bad record cannot fail the page.
struct RawArticle: Decodable {
  var isObject = true
  var author, title, description, url, urlToImage, publishedAt, content: String?
  var sourceID, sourceName: String?
  /// Keys whose value was neither a string nor null, with what was found.
  var wrongTypes: [(String, String)] = []

  enum CodingKeys: String, CodingKey {
    case source, author, title, description, url, urlToImage, publishedAt, content
  }

  /// An object with none of the keys (``RawArticleScanner`` fills it in).
  init() {}
  enum SourceKeys: String, CodingKey { case id, name }

  init(from decoder: any Decoder) throws {
    guard let c = try? decoder.container(keyedBy: CodingKeys.self) else {
      isObject = false
      return
    }
    func text<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K, _ name: String) -> String? {
      // One call in the usual case (a string, null or absent); the rest only for a value of another type.
      if let value = try? c.decodeIfPresent(String.self, forKey: key) { return value }
      guard c.contains(key), (try? c.decodeNil(forKey: key)) != true else { return nil }
      wrongTypes.append((name, RawArticle.kind(of: c, key)))
      return nil
    }
    author = text(c, .author, "author")
    title = text(c, .title, "title")
    description = text(c, .description, "description")
    url = text(c, .url, "url")
    urlToImage = text(c, .urlToImage, "urlToImage")
    publishedAt = text(c, .publishedAt, "publishedAt")
    content = text(c, .content, "content")
    if c.contains(.source), (try? c.decodeNil(forKey: .source)) != true {
      if let source = try? c.nestedContainer(keyedBy: SourceKeys.self, forKey: .source) {
        sourceID = text(source, .id, "source.id")
        sourceName = text(source, .name, "source.name")
      } else {
        wrongTypes.append(("source", RawArticle.kind(of: c, .source)))
      }
    }
  }

  static func kind<K: CodingKey>(of c: KeyedDecodingContainer<K>, _ key: K) -> String {
    if (try? c.decode(String.self, forKey: key)) != nil { return "a string" }
    if (try? c.decode(Bool.self, forKey: key)) != nil { return "a boolean" }
    if (try? c.decode(Double.self, forKey: key)) != nil { return "a number" }
    if (try? c.decode([JSONIgnored].self, forKey: key)) != nil { return "an array" }
    if (try? c.nestedContainer(keyedBy: AnyCodingKey.self, forKey: key)) != nil { return "an object" }
    // A string JSONDecoder cannot turn into Swift text: a lone UTF-16 surrogate, or invalid UTF-8.
    return "text that is not valid Unicode (a lone surrogate or invalid UTF-8)"
  }
}

/// Decodes and discards any JSON value.
struct JSONIgnored: Decodable {
  init(from decoder: any Decoder) throws {}
}

/// The per-chunk results of a parallel decode, each written once by its own iteration.
private final class ChunkResults: @unchecked Sendable {
  // @unchecked: every slot is written by exactly one iteration of concurrentPerform, under the lock, and read only
  // after concurrentPerform has returned.
  private var slots: [Result<[(Article?, [RecordIssue])], any Error>?]
  private let lock = NSLock()

  init(count: Int) { slots = Array(repeating: nil, count: count) }

  func set(_ index: Int, _ result: Result<[(Article?, [RecordIssue])], any Error>) {
    lock.lock()
    slots[index] = result
    lock.unlock()
  }

  func all() -> [Result<[(Article?, [RecordIssue])], any Error>] {
    lock.lock()
    defer { lock.unlock() }
    return slots.map { $0 ?? .success([]) }
  }
}

struct AnyCodingKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) {
    stringValue = String(intValue)
    self.intValue = intValue
  }
}
