import Foundation
import Testing

@testable import OfflineNewsModel

@Suite("Canonical URLs and article identity (RFC 3986 6.2.2-6.2.3)")
struct CanonicalURLTests {
  @Test(
    "equivalent spellings of one URL are one key",
    arguments: [
      ("HTTPS://Example.COM/a/b", "https://example.com/a/b"),
      ("https://example.com:443/a", "https://example.com/a"),
      ("http://example.com:80/a", "http://example.com/a"),
      ("https://example.com", "https://example.com/"),
      ("https://example.com/a/./b/../c", "https://example.com/a/c"),
      ("https://example.com/a/%7euser/%e2%82%ac", "https://example.com/a/~user/%E2%82%AC"),
      ("https://example.com/a#section-2", "https://example.com/a"),
      ("https://example.com/a?utm_source=x&id=2&utm_medium=rss&fbclid=Z", "https://example.com/a?id=2"),
      ("https://example.com/a?gclid=1&mc_cid=2&mc_eid=3", "https://example.com/a"),
      ("https://example.com/a?", "https://example.com/a"),
      ("https://example.com/a?b=2&a=1", "https://example.com/a?b=2&a=1"),
      ("https://user@Example.com:8443/A?Q=1", "https://user@example.com:8443/A?Q=1"),
      ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"),
      // Near the shape taken as canonical in one pass (`isCanonicalAsGiven`), each with one thing to change.
      ("https://example.com/a/..", "https://example.com/"),
      ("https://example.com/./a", "https://example.com/a"),
      ("https://example.com/a/.", "https://example.com/a/"),
      ("https://example.com/a%2db", "https://example.com/a-b"),
      ("https://example.com/a#", "https://example.com/a"),
      ("https://exAmple.com/a", "https://example.com/a"),
      ("Https://example.com/a", "https://example.com/a"),
      ("https://example.com:443/", "https://example.com/"),
      ("https://u@example.com/a", "https://u@example.com/a"),
      // Already canonical: given back as it is.
      (
        "https://www.example-news.co.uk/world/2024/storm-isolde-7f3",
        "https://www.example-news.co.uk/world/2024/storm-isolde-7f3"
      ),
      ("http://example.com/a/.b/..c/...", "http://example.com/a/.b/..c/..."),
      ("https://example.com/", "https://example.com/"),
    ] as [(String, String)])
  func canonical(input: String, expected: String) {
    #expect(CanonicalURL.canonical(input) == expected)
  }

  @Test("the one-pass check takes only texts that the rules give back unchanged")
  func canonicalAsGiven() {
    let texts = [
      "https://example.com/a", "http://example.com/a/b-c_d~e.html", "https://example.com/", "https://example.com",
      "https://example.com/a/..", "https://example.com/a?b=1", "https://example.com/a#b", "https://Example.com/a",
      "https://example.com:8080/a", "https://u@example.com/a", "https://example.com/%41", "https://exa%6Dple.com/a",
      "https://example.com/a b", "https://example.com/\u{E9}", "ftp://example.com/a", "https:/example.com/a",
      "https://example.com/...", "https://example.com/a/.", "https://example.com//a", "https://[::1]/a",
    ]
    var taken = 0
    for text in texts where CanonicalURL.isCanonicalAsGiven(text) {
      // The rules, applied one by one, give the same text back.
      #expect(CanonicalURL.canonicalByRules(text) == text, "\(text)")
      taken += 1
    }
    #expect(taken == 5)
    #expect(CanonicalURL.isCanonicalAsGiven("https://example.com/a"))
    #expect(!CanonicalURL.isCanonicalAsGiven("https://example.com"))
    #expect(!CanonicalURL.isCanonicalAsGiven("https://example.com/a/.."))
    #expect(!CanonicalURL.isCanonicalAsGiven("https://Example.com/a"))
  }

  @Test("http and https stay apart, other parameters and path case stay, non-http URLs are kept as they are")
  func distinctions() {
    #expect(CanonicalURL.canonical("http://example.com/a") != CanonicalURL.canonical("https://example.com/a"))
    #expect(CanonicalURL.canonical("https://example.com/a?id=2") != CanonicalURL.canonical("https://example.com/a"))
    #expect(CanonicalURL.canonical("https://example.com/A") == "https://example.com/A")
    #expect(CanonicalURL.canonical("mailto:someone@example.com") == nil)
    #expect(CanonicalURL.canonical("news-item:x/1") == nil)
    let urn = URL(string: "urn:isbn:0451450523")!
    #expect(CanonicalURL.canonical(urn) == urn)
  }

  @Test("an article made from a link is keyed by its canonical form and keeps the link as given")
  func articleKey() throws {
    let link = try #require(URL(string: "HTTPS://Example.com:443/story?utm_campaign=feed#top"))
    let article = Article(url: link, title: "T", publishedAt: Date(timeIntervalSince1970: 0))
    #expect(article.url.absoluteString == "https://example.com/story")
    #expect(article.link == link)
    #expect(article.displayURL == link)
  }

  @Test("items without a link are keyed by their id scoped to their source; fingerprints are stable")
  func scoped() {
    let a = ArticleIdentity.scoped("https://a.example/feed.json", id: "1")
    let b = ArticleIdentity.scoped("https://b.example/feed.json", id: "1")
    #expect(a != b)
    #expect(a == ArticleIdentity.scoped("https://a.example/feed.json", id: "1"))
    #expect(ArticleIdentity.isScoped(a))
    #expect(a.absoluteString == "news-item:https:%2F%2Fa.example%2Ffeed.json/1")
    #expect(ArticleIdentity.key(link: nil, scope: "hackernews", id: "42")?.absoluteString == "news-item:hackernews/42")
    #expect(ArticleIdentity.key(link: nil, scope: "s", id: nil) == nil)
    // FNV-1a 64 of "a" is af63dc4c8601ec8c (published test vector).
    #expect(ArticleIdentity.fingerprint(["a"]) == "af63dc4c8601ec8c")
    #expect(ArticleIdentity.fingerprint(["t", "d"]) != ArticleIdentity.fingerprint(["td"]))
  }

  @Test("a derived title is the text's first sentence, cut at a word within 80 characters")
  func derivedTitle() {
    #expect(ArticleTitle.derived(from: "  Hello   world. And more.") == "Hello world.")
    // A line break is not a sentence's end (plain text is often wrapped); a blank line ends the paragraph.
    #expect(ArticleTitle.derived(from: "No full stop\nhere") == "No full stop here")
    #expect(ArticleTitle.derived(from: "\n\nFirst paragraph\n  \nsecond one") == "First paragraph")
    #expect(ArticleTitle.derived(from: " \n ") == nil)
    let long = String(repeating: "word ", count: 40)
    let title = ArticleTitle.derived(from: long) ?? ""
    #expect(title.hasSuffix("…") && title.count <= 81)
    #expect(ArticleTitle.derived(from: "Version 2.0 is out") == "Version 2.0 is out")
  }
}
