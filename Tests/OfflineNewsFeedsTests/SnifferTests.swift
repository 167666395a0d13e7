import Foundation
import OfflineNewsFeeds
import TestSupport
import Testing

@Suite("Feeds: telling feeds, OPML, JSON and HTML apart from the first bytes")
struct SnifferTests {
  @Test(
    "our own documents",
    arguments: [
      ("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel/></rss>", FeedDocumentKind.xmlFeed),
      ("<!-- generated --><?xml-stylesheet href=\"x\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"/>", .xmlFeed),
      (
        "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://purl.org/rss/1.0/\"/>",
        .xmlFeed
      ),
      ("<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\"/>", .xmlFeed),
      ("<?xml version=\"1.0\"?>\n<opml version=\"2.0\"><head/><body/></opml>", .opml),
      ("<!DOCTYPE html>\n<html><head><title>x</title></head></html>", .html),
      ("<!doctype html><html lang=en><meta charset=utf-8><title>x</title>", .html),
      ("<html>\n<head>\n<link href='x' rel='stylesheet'>", .html),
      ("\u{FEFF}  {\"version\": \"https://jsonfeed.org/version/1.1\", \"items\": []}", .jsonFeed),
      ("{\"version\":\"https:\\/\\/jsonfeed.org\\/version\\/1\",\"items\":[]}", .jsonFeed),
      ("{\"status\":\"ok\",\"articles\":[]}", .json),
      ("  [1, 2, 3]", .json),
      ("<?xml version=\"1.0\"?><catalog/>", .unknown),
      ("plain text", .unknown),
      ("", .unknown),
    ])
  func own(text: String, expected: FeedDocumentKind) {
    #expect(FeedFormatSniffer.kind(of: Data(text.utf8)) == expected, "\(text)")
  }

  @Test("UTF-16 documents with a byte order mark")
  func utf16() throws {
    let feed = try Data(contentsOf: Fixtures.own("feeds/encodings/utf-16le-bom.xml"))
    #expect(FeedFormatSniffer.kind(of: feed) == .xmlFeed)
    let big = try Data(contentsOf: Fixtures.own("feeds/encodings/utf-16be-bom.xml"))
    #expect(FeedFormatSniffer.kind(of: big) == .xmlFeed)
  }

  @Test(
    "every file of ../shared/fixtures/real/feeds", .enabled(if: Fixtures.hasSharedReal),
    arguments: [
      ("3960.json", FeedDocumentKind.jsonFeed), ("inessential.json", .jsonFeed), ("Subs.opml", .opml),
      ("DaringFireball.html", .html), ("sixcolors.html", .html), ("DaringFireball.rss", .xmlFeed),
      ("allthis.atom", .xmlFeed), ("bio.rdf", .xmlFeed), ("KatieFloyd.rss", .xmlFeed), ("natasha.xml", .xmlFeed),
      ("4fsodonline.atom", .xmlFeed), ("scriptingNews.rss", .xmlFeed),
    ])
  func real(name: String, expected: FeedDocumentKind) throws {
    let data = try Data(contentsOf: RealFeeds.url(name))
    #expect(FeedFormatSniffer.kind(of: data) == expected, "\(name)")
  }

  @Test("a NewsAPI response is JSON, not a JSON Feed", .enabled(if: Fixtures.hasSharedReal))
  func newsAPI() throws {
    let url = Fixtures.sharedRealDirectory.appendingPathComponent(
      "newsapi-top-headlines-2023-removed-article.json")
    #expect(FeedFormatSniffer.kind(of: try Data(contentsOf: url)) == .json)
  }
}
