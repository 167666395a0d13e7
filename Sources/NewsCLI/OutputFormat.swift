import Foundation
import OfflineNews

/// Human and JSON renderings of articles and results.
enum OutputFormat {
  // MARK: JSON

  /// The `--json` document of a read:
  /// `{"origin":"network"|"cache","fetchedAt":ISO-8601|null,"networkError":string|null,"articles":[…]}`.
  struct ResultDocument: Encodable {
    var origin: Origin
    var fetchedAt: Timestamp?
    var networkError: String?
    var articles: [ArticleDocument]

    enum CodingKeys: String, CodingKey { case origin, fetchedAt, networkError, articles }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(origin.rawValue, forKey: .origin)
      try c.encode(fetchedAt?.rfc3339String, forKey: .fetchedAt)
      try c.encode(networkError, forKey: .networkError)
      try c.encode(articles, forKey: .articles)
    }
  }

  /// One article in `--json` output; absent values are `null`, `publishedAt` is RFC 3339 UTC with milliseconds.
  struct ArticleDocument: Encodable {
    var article: Article

    enum CodingKeys: String, CodingKey {
      case url, title, author, summary, imageURL, publishedAt, sourceID, sourceName, content
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(article.url.absoluteString, forKey: .url)
      try c.encode(article.title, forKey: .title)
      try c.encode(article.author, forKey: .author)
      try c.encode(article.summary, forKey: .summary)
      try c.encode(article.imageURL?.absoluteString, forKey: .imageURL)
      try c.encode(Timestamp(article.publishedAt).rfc3339String, forKey: .publishedAt)
      try c.encode(article.sourceID, forKey: .sourceID)
      try c.encode(article.sourceName, forKey: .sourceName)
      try c.encode(article.content, forKey: .content)
    }
  }

  static func json(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "{}\n" }
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  static func document(_ result: NewsResult, limit: Int?) -> ResultDocument {
    ResultDocument(
      origin: result.origin, fetchedAt: result.fetchedAt, networkError: result.networkError?.description,
      articles: result.articles.prefix(limit ?? .max).map(ArticleDocument.init))
  }

  // MARK: Human

  /// `offline — 20 cached articles from 3 h ago (network: connection refused)`, or
  /// `online — 19 articles from <source>` (`read — …` for a file source).
  static func header(_ result: NewsResult, source: String, now: Date) -> String {
    let count = result.articles.count
    let noun = count == 1 ? "article" : "articles"
    switch result.origin {
    case .network:
      let state = result.query.url.isFileURL ? "read" : "online"
      var line = "\(state) — \(count) \(noun) from \(source)"
      let skipped = result.issues.filter(\.skipped).count
      if skipped > 0 { line += " (\(skipped) skipped)" }
      return line
    case .cache:
      let age = result.fetchedAt.map { relative($0.date, now: now) } ?? "an unknown time"
      var line = "offline — \(count) cached \(noun) from \(age)"
      if let error = result.networkError { line += " (network: \(error))" }
      return line
    }
  }

  /// One line per article: time ago, source, title; fitted to `width` columns when given.
  static func lines(_ articles: some Collection<Article>, now: Date, width: Int?) -> String {
    var text = ""
    for article in articles {
      let when = pad(relative(article.publishedAt, now: now), 11)
      let source = pad(clip(article.sourceName ?? article.sourceID ?? "—", 22), 23)
      var line = "  " + when + source + article.title.replacingOccurrences(of: "\n", with: " ")
      if let width, width > 40, line.count > width { line = clip(line, width) }
      text += line + "\n"
    }
    return text
  }

  /// "just now", "5 min ago", "3 h ago", "2 d ago", "4 mo ago", "3 y ago"; "in 2 h" for a future date.
  static func relative(_ date: Date, now: Date) -> String {
    let seconds = now.timeIntervalSince(date)
    let magnitude = abs(seconds)
    let amount: String
    switch magnitude {
    case ..<60: return "just now"
    case ..<3600: amount = "\(Int(magnitude / 60)) min"
    case ..<86_400: amount = "\(Int(magnitude / 3600)) h"
    case ..<(86_400 * 60): amount = "\(Int(magnitude / 86_400)) d"
    case ..<(86_400 * 365): amount = "\(Int(magnitude / (86_400 * 30))) mo"
    default: amount = "\(Int(magnitude / (86_400 * 365.25))) y"
    }
    return seconds >= 0 ? amount + " ago" : "in " + amount
  }

  static func clip(_ text: String, _ width: Int) -> String {
    text.count <= width ? text : String(text.prefix(max(1, width - 1))) + "…"
  }
}
