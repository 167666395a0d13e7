import Foundation
import OfflineNewsFeeds
import Testing

/// Parses an inline XML fixture as if it had been fetched from `url`.
func parseFeed(_ xml: String, url: String = "https://example.org/feeds/main.xml", charset: String? = nil) throws
  -> ParsedFeed
{
  let feedURL = try #require(URL(string: url))
  return try FeedParser.parse(Data(xml.utf8), feedURL: feedURL, charset: charset)
}

/// The error an inline document is refused with, or `nil` when it is read.
func parseError(_ data: Data, url: String = "https://example.org/feed") -> FeedParseError? {
  guard let feedURL = URL(string: url) else { return nil }
  do {
    _ = try FeedParser.parse(data, feedURL: feedURL)
    return nil
  } catch {
    return error
  }
}

/// An RSS 2.0 document around `items` (and extra channel elements), with the common namespaces declared.
func rss(_ items: String, channel: String = "<title>Example</title><link>https://example.org/</link>") -> String {
  """
  <?xml version="1.0" encoding="UTF-8"?>
  <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/"
    xmlns:media="http://search.yahoo.com/mrss/" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
    xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dcterms="http://purl.org/dc/terms/">
  <channel>\(channel)
  \(items)
  </channel>
  </rss>
  """
}

/// An Atom 1.0 document around `entries`.
func atom(_ entries: String, feed: String = "<title>Example</title><link href=\"https://example.org/\"/>") -> String {
  """
  <?xml version="1.0" encoding="utf-8"?>
  <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
  \(feed)
  \(entries)
  </feed>
  """
}
