/// The class and id patterns of Readability.js (`REGEXPS`), matched as what they are: case-insensitive
/// alternations of literal words, searched in the ASCII-lower-cased bytes of `className + " " + id`.
///
/// Source: mozilla/readability, `Readability.js`, `REGEXPS.unlikelyCandidates`, `okMaybeItsACandidate`,
/// `positive`, `negative`, `byline`, `shareElements`, `videos`, `adWords`, `loadingWords`, `jsonLdArticleTypes`.
enum ReadabilityPatterns {
  /// A set of literal words, any of which may occur anywhere.
  struct Words: Sendable {
    let words: [[UInt8]]

    init(_ words: [String]) {
      self.words = words.map { Array($0.utf8) }
    }

    /// Whether `text` (already ASCII lower case) contains one of the words.
    func occurs(in text: [UInt8]) -> Bool {
      text.withUnsafeBufferPointer { haystack in
        words.contains { word in ReadabilityPatterns.find(word, in: haystack, from: 0) != nil }
      }
    }
  }

  /// `REGEXPS.unlikelyCandidates`.
  static let unlikelyCandidates = Words([
    "-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community", "cover-wrap", "disqus", "extra",
    "footer", "gdpr", "header", "legends", "menu", "related", "remark", "replies", "rss", "shoutbox", "sidebar",
    "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate", "pagination", "pager", "popup",
    "yom-remote",
  ])

  /// `REGEXPS.okMaybeItsACandidate`.
  static let maybeCandidate = Words(["and", "article", "body", "column", "content", "main", "shadow"])

  /// `REGEXPS.positive`.
  static let positive = Words([
    "article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "pagination", "post", "text", "blog",
    "story",
  ])

  /// `REGEXPS.negative`, less its `hid` alternatives (see ``isNegative(_:)``).
  private static let negativeWords = Words([
    "-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "footer", "gdpr", "masthead", "media", "meta",
    "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar",
    "skyscraper", "sponsor", "shopping", "tags", "widget",
  ])

  /// `REGEXPS.negative`: its words, or `hid` as a whole space-separated word (`^hid$| hid$| hid |^hid `).
  static func isNegative(_ text: [UInt8]) -> Bool {
    if negativeWords.occurs(in: text) { return true }
    let hid = Array("hid".utf8)
    return text.split(separator: 0x20, omittingEmptySubsequences: false).contains { Array($0) == hid }
  }

  /// `REGEXPS.byline`.
  static let byline = Words(["byline", "author", "dateline", "writtenby", "p-author"])

  /// `REGEXPS.shareElements`, `/(\b|_)(share|sharedaddy)(\b|_)/i`: `share` or `sharedaddy` with a word boundary or
  /// an underscore on each side.
  static func isShareElement(_ text: [UInt8]) -> Bool {
    text.withUnsafeBufferPointer { haystack in
      for word in [Array("share".utf8), Array("sharedaddy".utf8)] {
        var from = 0
        while let start = find(word, in: haystack, from: from) {
          let end = start + word.count
          let leftOK = start == 0 || !isWordByte(haystack[start - 1]) || haystack[start - 1] == UInt8(ascii: "_")
          let rightOK = end == haystack.count || !isWordByte(haystack[end]) || haystack[end] == UInt8(ascii: "_")
          if leftOK && rightOK { return true }
          from = start + 1
        }
      }
      return false
    }
  }

  /// `REGEXPS.videos`: `//`, an optional `www.`, then one of the video hosts Readability.js keeps embeds of.
  static func isVideo(_ text: [UInt8]) -> Bool {
    let hosts = [
      "dailymotion.com", "youtube.com", "youtube-nocookie.com", "player.vimeo.com", "v.qq.com", "archive.org",
      "upload.wikimedia.org", "player.twitch.tv",
    ]
    return text.withUnsafeBufferPointer { haystack in
      var from = 0
      let slashes = Array("//".utf8)
      let www = Array("www.".utf8)
      while let start = find(slashes, in: haystack, from: from) {
        for prefix in [[], www] {
          for host in hosts where hasPrefix(prefix + Array(host.utf8), in: haystack, at: start + 2) { return true }
        }
        from = start + 1
      }
      return false
    }
  }

  /// `REGEXPS.adWords`: the whole (normalised) text is a word meaning "advertisement".
  static func isAdWords(_ text: String) -> Bool {
    let words: Set<String> = [
      "ad", "advertising", "advertisement", "pub", "publicité", "werb", "werbung", "广告", "реклама", "anuncio",
    ]
    guard text.count <= 16 else { return false }
    return words.contains(text.lowercased())
  }

  /// `REGEXPS.loadingWords`: the whole text is "loading" (in a few languages), optionally followed by `…` or `...`.
  static func isLoadingWords(_ text: String) -> Bool {
    guard text.count <= 16 else { return false }
    var word = text.lowercased()
    if word.hasSuffix("…") {
      word.removeLast()
    } else if word.hasSuffix("...") {
      word.removeLast(3)
    }
    return ["loading", "正在加载", "загрузка", "chargement", "cargando"].contains(word)
  }

  /// `REGEXPS.jsonLdArticleTypes`, `/^Article|AdvertiserContentArticle|…|TechArticle|APIReference$/`: as written, the
  /// `^` binds only the first alternative and the `$` only the last; every other type name may occur anywhere.
  static func isArticleType(_ type: String) -> Bool {
    if type.hasPrefix("Article") || type.hasSuffix("APIReference") { return true }
    let anywhere = [
      "AdvertiserContentArticle", "NewsArticle", "AnalysisNewsArticle", "AskPublicNewsArticle",
      "BackgroundNewsArticle", "OpinionNewsArticle", "ReportageNewsArticle", "ReviewNewsArticle", "Report",
      "SatiricalArticle", "ScholarlyArticle", "MedicalScholarlyArticle", "SocialMediaPosting", "BlogPosting",
      "LiveBlogPosting", "DiscussionForumPosting", "TechArticle",
    ]
    return anywhere.contains { type.contains($0) }
  }

  // MARK: Bytes

  static func isWordByte(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F
  }

  static func hasPrefix(_ prefix: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
    guard start + prefix.count <= haystack.count else { return false }
    for index in 0..<prefix.count where haystack[start + index] != prefix[index] { return false }
    return true
  }

  static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
    guard let first = needle.first, needle.count <= haystack.count else { return nil }
    var index = from
    let last = haystack.count - needle.count
    while index <= last {
      if haystack[index] == first && hasPrefix(needle, in: haystack, at: index) { return index }
      index += 1
    }
    return nil
  }
}
