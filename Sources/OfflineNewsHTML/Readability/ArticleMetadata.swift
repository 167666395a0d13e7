import Foundation
import OfflineNewsModel

/// The metadata a page declares about its article: JSON-LD (schema.org `Article` and its subtypes), then
/// Dublin Core, OpenGraph, Twitter, Parse.ly and Weibo `<meta>` tags, by Readability.js's rules
/// (`_getJSONLD`, `_getArticleMetadata`).
struct ArticleMetadata: Equatable {
  var title: String?
  var byline: String?
  var excerpt: String?
  var siteName: String?
  var publishedTime: String?

  // MARK: JSON-LD

  /// The first `<script type="application/ld+json">` whose `@context` is schema.org and whose `@type` (or, without
  /// one, the first `@graph` item's) is an article type. A script that is not valid JSON, or whose `@context` or
  /// `@type` is not a string, is passed over, as Readability.js's `try` does.
  ///
  /// Source: <https://schema.org/Article>; JSON-LD 1.1 (W3C), `@context`, `@type`, `@graph`.
  static func fromJSONLD(_ document: HTMLDocument) -> ArticleMetadata {
    guard let root = document.rawRoot else { return ArticleMetadata() }
    for script in root.descendants("script") where script.attribute("type") == "application/ld+json" {
      if let metadata = fromJSONLD(script: script.textContent, document: document) { return metadata }
    }
    return ArticleMetadata()
  }

  private static func fromJSONLD(script text: String, document: HTMLDocument) -> ArticleMetadata? {
    // Strip CDATA markers if present: /^\s*<!\[CDATA\[|\]\]>\s*$/g.
    var content = Substring(text)
    let leading = content.prefix { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
    if content.dropFirst(leading.count).hasPrefix("<![CDATA[") { content = content.dropFirst(leading.count + 9) }
    let trailing = content.reversed().prefix { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
    if content.dropLast(trailing.count).hasSuffix("]]>") { content = content.dropLast(trailing.count + 3) }
    guard let parsed = try? JSONSerialization.jsonObject(with: Data(content.utf8), options: [.fragmentsAllowed])
    else { return nil }
    var object: [String: Any]
    if let list = parsed as? [Any] {
      // A list of items: the first of an article type.
      var found: [String: Any]?
      for item in list {
        guard let item = item as? [String: Any], let type = item["@type"] else { continue }
        guard let name = type as? String else { return nil }  // `.match` of a non-string throws
        if ReadabilityPatterns.isArticleType(name) {
          found = item
          break
        }
      }
      guard let found else { return nil }
      object = found
    } else if let dictionary = parsed as? [String: Any] {
      object = dictionary
    } else {
      return nil
    }
    // `@context` is schema.org, as a string or as an object's `@vocab`.
    let context = object["@context"]
    let vocabulary = (context as? [String: Any])?["@vocab"] as? String
    guard (context as? String).map(isSchemaOrg) ?? vocabulary.map(isSchemaOrg) ?? false else { return nil }
    if object["@type"] == nil, let graph = object["@graph"] as? [Any] {
      var found: [String: Any]?
      for item in graph {
        let type = (item as? [String: Any])?["@type"]
        if let type, !(type is String) { return nil }  // `.match` of a non-string throws: the script is skipped
        if let type = type as? String, ReadabilityPatterns.isArticleType(type) {
          found = item as? [String: Any]
          break
        }
      }
      guard let found else { return nil }
      object = found
    }
    guard let type = object["@type"] as? String, ReadabilityPatterns.isArticleType(type) else { return nil }

    var metadata = ArticleMetadata()
    let name = object["name"] as? String
    let headline = object["headline"] as? String
    if let name, let headline, name != headline {
      // Some sites put their own name in `name` and the title in `headline`: take the one like the <title>.
      let title = ArticleTitle.from(document)
      let nameMatches = textSimilarity(name, title) > 0.75
      let headlineMatches = textSimilarity(headline, title) > 0.75
      metadata.title = headlineMatches && !nameMatches ? headline : name
    } else if let name {
      metadata.title = JSString.trim(name)
    } else if let headline {
      metadata.title = JSString.trim(headline)
    }
    if let author = object["author"] as? [String: Any], let name = author["name"] as? String {
      metadata.byline = JSString.trim(name)
    } else if let authors = object["author"] as? [Any], let first = authors.first as? [String: Any],
      first["name"] is String
    {
      metadata.byline = authors.compactMap { ($0 as? [String: Any])?["name"] as? String }.map(JSString.trim)
        .joined(separator: ", ")
    }
    if let description = object["description"] as? String { metadata.excerpt = JSString.trim(description) }
    if let publisher = object["publisher"] as? [String: Any], let name = publisher["name"] as? String {
      metadata.siteName = JSString.trim(name)
    }
    if let published = object["datePublished"] as? String { metadata.publishedTime = JSString.trim(published) }
    return metadata
  }

  /// `/^https?\:\/\/schema\.org\/?$/`.
  private static func isSchemaOrg(_ context: String) -> Bool {
    ["http://schema.org", "https://schema.org", "http://schema.org/", "https://schema.org/"].contains(context)
  }

  /// Readability.js's `_textSimilarity`: 1 − (the length of B's words not in A) ÷ (the length of B's words), words
  /// being the runs of ASCII letters, digits and `_` of the lower-cased texts (`/\W+/`).
  static func textSimilarity(_ a: String, _ b: String) -> Double {
    func tokens(_ text: String) -> [Substring] {
      text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }
    }
    let tokensA = tokens(a)
    let tokensB = tokens(b)
    guard !tokensA.isEmpty, !tokensB.isEmpty else { return 0 }
    let setA = Set(tokensA)
    let unique = tokensB.filter { !setA.contains($0) }
    let uniqueLength = JSString.length(unique.joined(separator: " "))
    let allLength = JSString.length(tokensB.joined(separator: " "))
    return 1 - Double(uniqueLength) / Double(allLength)
  }

  // MARK: <meta>

  /// The metadata of the page: JSON-LD's values first, then the `<meta>` tags', then the `<title>` for the title.
  /// Values are unescaped once more (`&amp;` → `&`, `&#39;` → `'`), as many sites escape them twice.
  static func of(_ document: HTMLDocument, jsonLD: ArticleMetadata) -> ArticleMetadata {
    var values: [String: String] = [:]
    for meta in document.rawRoot?.descendants("meta") ?? [] {
      guard let content = meta.attribute("content"), !content.isEmpty else { continue }
      var matched = false
      if let property = meta.attribute("property"), let name = propertyName(property) {
        matched = true
        values[name] = JSString.trim(content)
      }
      if !matched, let name = meta.attribute("name"), isMetaName(name) {
        let key = String(
          String(name.lowercased().unicodeScalars.filter { !JSString.isWhitespace($0) }).map { $0 == "." ? ":" : $0 })
        values[key] = JSString.trim(content)
      }
    }
    func first(_ keys: String...) -> String? {
      for key in keys { if let value = values[key], !value.isEmpty { return value } }
      return nil
    }
    func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
    var metadata = ArticleMetadata()
    metadata.title =
      nonEmpty(jsonLD.title)
      ?? first(
        "dc:title", "dcterm:title", "og:title", "weibo:article:title", "weibo:webpage:title", "title",
        "twitter:title", "parsely-title")
    if metadata.title == nil { metadata.title = ArticleTitle.from(document) }
    // `article:author` is often the URL of the author's profile, which is no byline.
    let articleAuthor = first("article:author").flatMap { URLReference.hasScheme(JSString.trim($0)) ? nil : $0 }
    metadata.byline =
      nonEmpty(jsonLD.byline) ?? first("dc:creator", "dcterm:creator", "author", "parsely-author") ?? articleAuthor
    metadata.excerpt =
      nonEmpty(jsonLD.excerpt)
      ?? first(
        "dc:description", "dcterm:description", "og:description", "weibo:article:description",
        "weibo:webpage:description", "description", "twitter:description")
    metadata.siteName = nonEmpty(jsonLD.siteName) ?? first("og:site_name")
    metadata.publishedTime =
      nonEmpty(jsonLD.publishedTime) ?? first("article:published_time", "parsely-pub-date")
    metadata.title = metadata.title.map(unescapeHTMLEntities)
    metadata.byline = metadata.byline.map(unescapeHTMLEntities)
    metadata.excerpt = metadata.excerpt.map(unescapeHTMLEntities)
    metadata.siteName = metadata.siteName.map(unescapeHTMLEntities)
    metadata.publishedTime = metadata.publishedTime.map(unescapeHTMLEntities)
    return metadata
  }

  private static let propertyPrefixes = ["article", "dc", "dcterm", "og", "twitter"]
  private static let propertyNames = ["author", "creator", "description", "published_time", "title", "site_name"]

  /// The first match of `/\s*(article|dc|dcterm|og|twitter)\s*:\s*(author|…|site_name)\s*/gi` in a `property`
  /// (a space-separated list), lower-cased without whitespace: `"og:title"`.
  static func propertyName(_ property: String) -> String? {
    let scalars = Array(property.lowercased().unicodeScalars)
    var start = 0
    while start < scalars.count {
      for prefix in propertyPrefixes {
        let prefixScalars = Array(prefix.unicodeScalars)
        guard matches(prefixScalars, in: scalars, at: start) else { continue }
        var index = start + prefixScalars.count
        while index < scalars.count, JSString.isWhitespace(scalars[index]) { index += 1 }
        guard index < scalars.count, scalars[index] == ":" else { continue }
        index += 1
        while index < scalars.count, JSString.isWhitespace(scalars[index]) { index += 1 }
        for name in propertyNames where matches(Array(name.unicodeScalars), in: scalars, at: index) {
          return prefix + ":" + name
        }
      }
      start += 1
    }
    return nil
  }

  /// `/^\s*(?:(dc|dcterm|og|twitter|parsely|weibo:(article|webpage))\s*[-\.:]\s*)?(author|creator|pub-date|
  /// description|title|site_name)\s*$/i`.
  static func isMetaName(_ name: String) -> Bool {
    let text = JSString.trim(name.lowercased())
    let names = ["author", "creator", "pub-date", "description", "title", "site_name"]
    if names.contains(text) { return true }
    for prefix in ["dc", "dcterm", "og", "twitter", "parsely", "weibo:article", "weibo:webpage"]
    where text.hasPrefix(prefix) {
      var rest = Substring(text.dropFirst(prefix.count))
      rest = rest.drop { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
      guard let separator = rest.first, separator == "-" || separator == "." || separator == ":" else { continue }
      rest = rest.dropFirst().drop { $0.unicodeScalars.allSatisfy(JSString.isWhitespace) }
      if names.contains(String(rest)) { return true }
    }
    return false
  }

  private static func matches(_ word: [Unicode.Scalar], in scalars: [Unicode.Scalar], at index: Int) -> Bool {
    guard index + word.count <= scalars.count else { return false }
    for offset in 0..<word.count where scalars[index + offset] != word[offset] { return false }
    return true
  }

  /// Readability.js's `_unescapeHtmlEntities`: `&quot;`, `&amp;`, `&apos;`, `&lt;`, `&gt;`, then decimal and
  /// hexadecimal references; a reference to 0, a surrogate or beyond U+10FFFF becomes U+FFFD, as a conforming
  /// HTML parser does (HTML Living Standard, "numeric character reference end state").
  static func unescapeHTMLEntities(_ text: String) -> String {
    guard text.contains("&") else { return text }
    let named: [String: String] = ["quot": "\"", "amp": "&", "apos": "'", "lt": "<", "gt": ">"]
    var once = ""
    var rest = Substring(text)
    while let amp = rest.firstIndex(of: "&") {
      once += rest[..<amp]
      let after = rest[rest.index(after: amp)...]
      if let semicolon = after.prefix(5).firstIndex(of: ";"), let value = named[String(after[..<semicolon])] {
        once += value
        rest = after[after.index(after: semicolon)...]
      } else {
        once += "&"
        rest = after
      }
    }
    once += rest
    guard once.contains("&#") else { return once }
    var out = ""
    rest = Substring(once)
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      var after = rest[rest.index(after: amp)...]
      guard after.first == "#" else {
        out += "&"
        rest = after
        continue
      }
      after = after.dropFirst()
      let hex = after.first == "x" || after.first == "X"
      let digits = (hex ? after.dropFirst() : after).prefix { $0.isASCII && (hex ? $0.isHexDigit : $0.isNumber) }
      let end = digits.endIndex
      guard !digits.isEmpty, end < after.endIndex, after[end] == ";" else {
        out += "&"
        rest = rest[rest.index(after: amp)...]
        continue
      }
      let significant = digits.drop { $0 == "0" }
      let value = significant.count > 8 ? nil : UInt32(significant.isEmpty ? "0" : significant, radix: hex ? 16 : 10)
      var scalar = value.flatMap(Unicode.Scalar.init) ?? "\u{FFFD}"
      if scalar.value == 0 { scalar = "\u{FFFD}" }
      out.unicodeScalars.append(scalar)
      rest = after[after.index(after: end)...]
    }
    return out + rest
  }
}
