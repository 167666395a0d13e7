import Foundation
import OfflineNewsModel
import Testing

private func key(_ text: String) throws -> String {
  NewsQuery(url: try #require(URL(string: text))).cacheKey
}

@Suite("NewsQuery.cacheKey")
struct NewsQueryTests {
  @Test("a URL without apiKey is its own cache key")
  func unchanged() throws {
    for text in [
      "https://newsapi.org/v2/top-headlines?country=us",
      "https://newsapi.org/v2/everything?page=2&q=swift&sortBy=publishedAt",
      "https://newsapi.org/v2/top-headlines",
      "file:///tmp/saved%20response.json",
    ] {
      #expect(try key(text) == text)
    }
  }

  @Test(
    "apiKey items are removed in any letter case, the others sorted by name (repeated names in their order)",
    arguments: [
      (
        "https://newsapi.org/v2/top-headlines?country=us&apiKey=SECRET",
        "https://newsapi.org/v2/top-headlines?country=us"
      ),
      (
        "https://newsapi.org/v2/top-headlines?apiKey=SECRET&country=us",
        "https://newsapi.org/v2/top-headlines?country=us"
      ),
      (
        "https://newsapi.org/v2/top-headlines?APIKEY=SECRET&country=us",
        "https://newsapi.org/v2/top-headlines?country=us"
      ),
      (
        "https://newsapi.org/v2/top-headlines?apikey=SECRET&country=us",
        "https://newsapi.org/v2/top-headlines?country=us"
      ),
      (
        "https://newsapi.org/v2/everything?z=1&a=2&ApiKey=SECRET&m=3&apiKey=OTHER&b=4",
        "https://newsapi.org/v2/everything?a=2&b=4&m=3&z=1"
      ),
      ("https://newsapi.org/v2/top-headlines?apiKey=SECRET", "https://newsapi.org/v2/top-headlines"),
      ("https://newsapi.org/v2/top-headlines?apiKey=", "https://newsapi.org/v2/top-headlines"),
      (
        "https://newsapi.org/v2/everything?q=apiKey&apiKeyHint=1&key=2&apiKey=SECRET",
        "https://newsapi.org/v2/everything?apiKeyHint=1&key=2&q=apiKey"
      ),
      ("https://example.com/feed?tag=b&tag=a&x=1", "https://example.com/feed?tag=b&tag=a&x=1"),
    ] as [(String, String)])
  func removesAPIKey(input: String, expected: String) throws {
    let query = NewsQuery(url: try #require(URL(string: input)))
    #expect(query.cacheKey == expected)
    #expect(query.description == expected)
    #expect(!query.cacheKey.contains("SECRET"))
    #expect(query.url.absoluteString == input, "the request URL itself is not changed")
  }

  @Test("removing apiKey leaves the other items' percent-encoding as it was")
  func keepsPercentEncoding() throws {
    // `q=a%2Bb` searches for "a+b"; `q=a+b` (form encoding) searches for "a b". They must stay different keys.
    #expect(
      try key("https://newsapi.org/v2/everything?q=a%2Bb&apiKey=SECRET") == "https://newsapi.org/v2/everything?q=a%2Bb")
    #expect(
      try key("https://newsapi.org/v2/everything?q=a+b&apiKey=SECRET") == "https://newsapi.org/v2/everything?q=a+b")
    #expect(
      try key("https://newsapi.org/v2/everything?q=x%26y&apiKey=SECRET") == "https://newsapi.org/v2/everything?q=x%26y")
    // And the key of a query does not depend on whether an apiKey was in it.
    #expect(
      try key("https://newsapi.org/v2/everything?q=a%2Bb&apiKey=SECRET")
        == key("https://newsapi.org/v2/everything?q=a%2Bb"))
  }

  @Test(
    "a URL shown to people: the password of its userinfo is ***, the user name and the rest as they are",
    arguments: [
      ("http://user:pa%40ss@127.0.0.1:8151/feed/auth", "http://user:***@127.0.0.1:8151/feed/auth"),
      ("https://ann:secret@example.org", "https://ann:***@example.org"),
      ("https://ann:secret@example.org?q=1#f", "https://ann:***@example.org?q=1#f"),
      ("https://ann:a:b@example.org/x?apiKey=SECRET&q=1", "https://ann:***@example.org/x?q=1"),
      ("https://ann@example.org/feed", "https://ann@example.org/feed"),
      ("https://ann:@example.org/feed", "https://ann:@example.org/feed"),
      ("https://example.org/feed?u=a:b@c", "https://example.org/feed?u=a:b@c"),
      ("https://example.org/a:b@c/feed", "https://example.org/a:b@c/feed"),
      ("mailto:ann:x@example.org", "mailto:ann:x@example.org"),
      ("feed:http://ann:secret@example.org/rss", "feed:http://ann:***@example.org/rss"),
      ("Tech News", "Tech News"),
      ("/home/ann/feed.xml", "/home/ann/feed.xml"),
    ] as [(String, String)])
  func shownWithoutPassword(input: String, expected: String) throws {
    #expect(NewsQuery.passwordsShown(in: input) == expected || input.contains("apiKey"))
    #expect(NewsQuery.shown(input) == expected)
    if let url = URL(string: input), url.scheme != nil {
      #expect(NewsQuery.shown(url) == expected)
      let query = NewsQuery(url: url)
      #expect(!query.description.contains("secret") && !query.description.contains("pa%40ss"))
      #expect(query.url == url, "the request URL keeps its credentials")
    }
  }

  @Test("URLs inside a line quoted in a message: each one's password shown as ***, the rest of the line as it is")
  func shownInText() {
    #expect(
      NewsQuery.passwordsShown(in: #"http://u:s3cret@h.example/a.rss tag1 "~Name" exec:x https://v:pw@h2.example"#)
        == #"http://u:***@h.example/a.rss tag1 "~Name" exec:x https://v:***@h2.example"#)
    #expect(NewsQuery.passwordsShown(in: #"value dropped: "ftp://u:p@h/x""#) == #"value dropped: "ftp://u:***@h/x""#)
    #expect(NewsQuery.passwordsShown(in: "no URL: a:b@c") == "no URL: a:b@c")
    #expect(NewsQuery.passwordsShown(in: "http://u@h/x and http://h/a:b@c") == "http://u@h/x and http://h/a:b@c")
  }
}
