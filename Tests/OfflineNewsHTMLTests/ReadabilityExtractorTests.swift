import Foundation
import OfflineNewsHTML
import TestSupport
import Testing

/// The extractor on a page written for the test (`Tests/Fixtures/html/article-page.html`) and on small inputs that
/// pin single rules.
struct ReadabilityExtractorTests {
  static func article(_ name: String, url: URL? = nil) throws -> ReadableArticle? {
    let data = try Data(contentsOf: Fixtures.own("html/\(name)"))
    return try ReadabilityExtractor().extract(from: data, url: url)
  }

  @Test("metadata: OpenGraph title, site name, description unescaped once more, lang, byline by itemprop=name")
  func metadata() throws {
    let article = try #require(try Self.article("article-page.html"))
    #expect(article.title == "Rivers rise across the valley after a week of rain")
    #expect(article.siteName == "Valley Gazette")
    #expect(article.excerpt == "Flood warnings are in force for three towns & two villages.")
    #expect(article.lang == "en-GB")
    #expect(article.byline == "Ana Rivera")
    #expect(article.publishedTime == nil)
  }

  @Test("the content is the article: navigation, sidebar, comments, footer, scripts and share links are gone")
  func content() throws {
    let article = try #require(try Self.article("article-page.html"))
    #expect(article.text.contains("The river Wend rose by two metres overnight"))
    #expect(article.text.contains("More rain is forecast for Thursday."))
    for furniture in ["Most read", "Other story", "First! This is a comment", "All rights reserved", "Home", "Share"] {
      #expect(!article.text.contains(furniture), "\(furniture)")
    }
    #expect(!article.content.contains("<script"))
    #expect(!article.content.contains("class=\"story\""))
    #expect(article.content.hasPrefix("<div id=\"readability-page-1\" class=\"page\">"))
  }

  @Test("relative URLs become absolute against <base>; lazy images get a src; javascript: links become text")
  func urls() throws {
    let article = try #require(
      try Self.article("article-page.html", url: URL(string: "https://gazette.example/2024/05/rivers")))
    #expect(article.content.contains("href=\"https://gazette.example/news/warnings.html\""))
    #expect(article.content.contains("src=\"https://gazette.example/news/images/bridge.jpg\""))
    #expect(!article.content.contains("javascript:"))
    #expect(article.text.contains("sharing it is encouraged"))
  }

  @Test("JSON-LD comes first: headline, authors joined, publisher, datePublished, description")
  func jsonLD() throws {
    let html = """
      <html><head><title>Ignored title - Site</title>
      <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"S"},
      {"@type":"NewsArticle","headline":"The JSON-LD headline","author":[{"@type":"Person","name":" Ana "},
      {"name":"Bo"}],"publisher":{"name":"Daily"},"datePublished":"2024-05-01T08:00:00Z","description":"Sum."}]}
      </script></head><body><p>\(String(repeating: "Words of the story, many of them. ", count: 30))</p></body></html>
      """
    let article = try #require(ReadabilityExtractor().extract(from: HTMLDocument(html: html)))
    #expect(article.title == "The JSON-LD headline")
    #expect(article.byline == "Ana, Bo")
    #expect(article.siteName == "Daily")
    #expect(article.publishedTime == "2024-05-01T08:00:00Z")
    #expect(article.excerpt == "Sum.")
  }

  @Test("the title loses the site name after a separator, or before it when too short")
  func titles() throws {
    func title(_ text: String) -> String? {
      let html = "<title>\(text)</title><p>\(String(repeating: "Some text of the story here. ", count: 30))</p>"
      return ReadabilityExtractor().extract(from: HTMLDocument(html: html))?.title
    }
    #expect(title("A long enough story title | Site") == "A long enough story title")
    #expect(title("Site - A long story headline here today") == "A long story headline here today")
    #expect(title("Site » Section » A story") == "Site » Section")
    #expect(title("Site: A headline with plenty of words") == "A headline with plenty of words")
    #expect(title("Short - Site") == "Short - Site")
  }

  @Test("a text direction comes from the content's ancestors")
  func direction() throws {
    let paragraph = "<p>\(String(repeating: "نص عربي طويل بما فيه الكفاية، ", count: 20))</p>"
    let html = "<body><div dir=\"rtl\">\(paragraph)\(paragraph)</div>"
    let article = try #require(ReadabilityExtractor().extract(from: HTMLDocument(html: html)))
    #expect(article.dir == "rtl")
  }

  @Test("a short page still gives its text (after the filters are turned off)")
  func shortPage() throws {
    let article = try #require(
      ReadabilityExtractor().extract(from: HTMLDocument(html: "<body><div class=\"comment\">Just this.</div>")))
    #expect(article.text == "Just this.\n")
  }

  @Test("no body or no text: no article")
  func nothing() throws {
    #expect(try ReadabilityExtractor().extract(from: Data()) == nil)
    #expect(ReadabilityExtractor().extract(from: HTMLDocument(html: "<title>t</title>")) == nil)
    #expect(ReadabilityExtractor().extract(from: HTMLDocument(html: "<body><div> </div></body>")) == nil)
  }
}
