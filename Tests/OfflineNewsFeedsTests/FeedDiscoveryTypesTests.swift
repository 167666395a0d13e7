import Foundation
import OfflineNewsFeeds
import Testing

/// Feed discovery finds every feed type a page announces — RSS, Atom, RSS 1.0 (RDF), JSON Feed, and the generic
/// `text/xml` / `application/xml` a page may use — and leaves out the links that are not feeds though they are
/// `rel="alternate"` of a generic type: WordPress's REST API link (`application/json`, `/wp-json/`, on every
/// WordPress page) and oEmbed. Issue 29, item 5.
@Suite("Feed discovery: every feed type, no non-feeds")
struct FeedDiscoveryTypesTests {
  @Test("RSS, Atom, RDF, JSON Feed, text/xml and legacy types are found in order; wp-json and oEmbed are not")
  func everyType() throws {
    let page = Data(
      """
      <!doctype html><html><head><title>A blog</title>
      <link rel="alternate" type="application/rss+xml" title="RSS" href="/feed/">
      <link rel="alternate" type="application/atom+xml" title="Atom" href="/atom.xml">
      <link rel="alternate" type="application/rdf+xml" title="RDF" href="/index.rdf">
      <link rel="alternate" type="application/feed+json" title="JSON Feed" href="/feed.json">
      <link rel="alternate" type="text/xml" title="Old RSS" href="/rss.xml">
      <link rel="alternate" type="application/x-rss+xml" href="/legacy.xml">
      <link rel="alternate" type="application/json" href="https://blog.example/wp-json/wp/v2/posts/12">
      <link rel="alternate" type="application/json+oembed" href="https://blog.example/wp-json/oembed/1.0/embed?url=x">
      <link rel="alternate" type="text/xml+oembed" href="https://blog.example/wp-json/oembed/1.0/embed?format=xml">
      <link rel="alternate" hreflang="de" href="/de/">
      <link rel="stylesheet" type="text/css" href="/style.css">
      </head><body></body></html>
      """.utf8)
    let found = FeedDiscovery.read(page, pageURL: try #require(URL(string: "https://blog.example/post/1")))
    #expect(
      found.feeds.map(\.url.absoluteString)
        == ["/feed/", "/atom.xml", "/index.rdf", "/feed.json", "/rss.xml", "/legacy.xml"].map {
          "https://blog.example" + $0
        })
    #expect(found.feeds.map(\.type).contains("application/rdf+xml"))
    #expect(FeedDiscovery.announcesFeeds(page))
    let wordpressOnly = Data(
      """
      <html><head><link rel="alternate" type="application/json" href="/wp-json/wp/v2/pages/2"></head></html>
      """.utf8)
    #expect(!FeedDiscovery.announcesFeeds(wordpressOnly), "a page whose only alternate is its REST API has no feed")
  }
}
