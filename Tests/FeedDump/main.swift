// feed-dump: reads feed files with `FeedParser` and prints, per file, one line of JSON in the shape of feedparser's
// result (`feed`, `entries`, `bozo`), for scripts/feedparser-conformance.sh. Not a product: a test tool.
//
// Standard input: one file per line, `PATH`, `PATH<TAB>URL` or `PATH<TAB>URL<TAB>CONTENT-TYPE`: the URL the file is
// read as coming from (default: the file's URL) and the HTTP `Content-Type` it is served with (its `charset` goes to
// the parser). Standard output: one JSON object per input line, in the same order.
import Foundation
import OfflineNewsFeeds

/// A feed text as feedparser's `content` list element gives it.
func text(_ value: FeedText?) -> Any {
  guard let value else { return NSNull() }
  return [
    "value": value.value, "type": value.kind == .html ? "text/html" : "text/plain",
    "base": value.baseURL?.absoluteString ?? "",
  ]
}

/// A string, or JSON's `null`.
func json(_ value: String?) -> Any { value.map { $0 as Any } ?? NSNull() }

func seconds(_ date: Date?) -> Any { date.map { $0.timeIntervalSince1970 } ?? NSNull() }

func dump(path: String, url: String?, contentType: String?) -> [String: Any] {
  guard let data = FileManager.default.contents(atPath: path) else { return ["file": path, "error": "unreadable"] }
  let feedURL = url.flatMap { URL(string: $0) } ?? URL(fileURLWithPath: path)
  let feed: ParsedFeed
  do {
    feed = try FeedParser.parse(data, feedURL: feedURL, charset: FeedParser.charset(fromContentType: contentType))
  } catch {
    return ["file": path, "error": error.description]
  }
  let entries: [[String: Any]] = feed.items.map { item in
    [
      "title": json(item.titleIsDerived ? nil : item.title),
      "link": json(item.link?.absoluteString),
      "id": json(item.guid),
      "summary": text(item.summary),
      "content": text(item.content),
      "author": json(item.author),
      "published": seconds(item.published),
      "updated": seconds(item.updated),
      "image": json(item.imageURL?.absoluteString),
      "enclosures": item.enclosures.map { enclosure -> [String: Any] in
        [
          "href": enclosure.url.absoluteString, "type": json(enclosure.type),
          "length": json(enclosure.length.map { String($0) }),
        ]
      },
      "tags": item.categories,
    ]
  }
  return [
    "file": path,
    "format": feed.format.rawValue,
    "bozo": feed.issues.contains { $0.kind == .recoveredXML },
    "issues": feed.issues.map(\.description),
    "feed": [
      "title": json(feed.title), "link": json(feed.homePageURL?.absoluteString),
      "language": json(feed.language), "author": json(feed.author),
      "image": json(feed.imageURL?.absoluteString),
    ],
    "entries": entries,
  ]
}

while let line = readLine() {
  let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
  guard let path = parts.first, !path.isEmpty else { continue }
  let field = { (index: Int) in parts.count > index && !parts[index].isEmpty ? parts[index] : nil }
  let object = dump(path: path, url: field(1), contentType: field(2))
  let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
  FileHandle.standardOutput.write(json + Data("\n".utf8))
}
