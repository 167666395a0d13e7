// An app that embeds OfflineNews, outside the package's targets and using only its public API (no NewsCLI, no
// `package` declaration, no decoder of its own): built and run by scripts/check-app-program.sh against feeds it
// serves on loopback. It subscribes, refreshes with whole texts and images, marks a folder read, deletes an article,
// refreshes again while observing a list, loads a shipped mapping by name, and reads everything offline.
//
// Usage: AppCheck online|offline BASE_URL SITE_FOLDER STORE_FOLDER
import Foundation
import OfflineNews
import OfflineNewsImport
import OfflineNewsStorage
import OfflineNewsCurl

func check(_ condition: Bool, _ what: String) {
  guard condition else {
    print("app-check: FAILED: \(what)")
    exit(1)
  }
  print("app-check: ok: \(what)")
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let base = URL(string: arguments[2]) else {
  print("usage: AppCheck online|offline BASE_URL SITE_FOLDER STORE_FOLDER")
  exit(64)
}
let phase = arguments[1]
let site = URL(fileURLWithPath: arguments[3], isDirectory: true)
let store = URL(fileURLWithPath: arguments[4], isDirectory: true)
let images = store.appendingPathComponent("images", isDirectory: true)

let storage = try StorageContext(path: store.appendingPathComponent("news.sqlite").path)
// The default network reads every format `news` reads (its decoder is ArticleDecoder).
let network = HTTPNewsNetwork(apiKey: nil, timeout: 5)
let repository = NewsRepository(storage: storage, network: network, imageFolder: images)
let options = RefreshOptions(transport: CurlHTTPTransport(timeout: 5), fullText: true)

if phase == "online" {
  try await repository.subscribe(
    NewsSource(name: "ATP", url: base.appendingPathComponent("atp/feed.xml"), folder: ["Podcasts"]))
  try await repository.subscribe(
    NewsSource(name: "Swift", url: base.appendingPathComponent("swift/atom.xml"), folder: ["Tech"]))
  try await repository.subscribe(
    NewsSource(name: "Ruby", url: base.appendingPathComponent("ruby/feed.json"), folder: ["Tech"]))
  check(try await repository.subscriptions().count == 3, "three subscriptions in two folders")

  var unread = repository.observe(ArticleFilter(unreadOnly: true)).makeAsyncIterator()
  check(try await unread.next()?.isEmpty == true, "the observed unread list starts empty")

  let first = try await repository.refreshSubscriptions(options: options)
  check(first.sources.map(\.status) == [.new, .new, .new], "every feed refreshed: \(first.sources.map(\.status))")
  check(first.fullText?.fetched == 7, "seven whole texts fetched: \(String(describing: first.fullText))")
  check((first.fullText?.imagesStored ?? 0) >= 7, "their images stored")
  let files = (try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? []
  check(!files.isEmpty, "image files on disk (\(files.count))")
  while let list = try await unread.next(), list.count < 7 {}
  check(true, "the observed list updated to the seven new articles")

  check(try await repository.counts(inFolder: ["Tech"]) == ArticleCounts(total: 4, unread: 4), "Tech: 4 unread")
  check(try await repository.markRead(inFolder: ["Tech"]) == 4, "Tech marked read")
  check(try await repository.counts(inFolder: []) == ArticleCounts(total: 7, unread: 3), "3 unread left")

  let atp = try await repository.read(filter: ArticleFilter(source: "ATP"))
  guard let oldest = atp.last else { fatalError("no ATP article") }
  check(try await repository.delete([oldest]) == 1, "one article deleted")

  // The feed gains an item; it still lists the deleted one.
  let feed = site.appendingPathComponent("atp/feed.xml")
  let text = try String(contentsOf: feed, encoding: .utf8)
  let item = """
    <item><title>ATP 4</title><link>\(base.appendingPathComponent("atp/4.html"))</link><guid>atp-4</guid>
    <pubDate>Thu, 04 Jan 2024 10:00:00 GMT</pubDate></item>
    """
  try text.replacingOccurrences(of: "<item>", with: item + "<item>", options: [], range: text.range(of: "<item>"))
    .write(to: feed, atomically: true, encoding: .utf8)
  let second = try await repository.refreshSubscriptions(inFolder: ["Podcasts"], options: options)
  check(
    second.sources.first?.inserted == 1,
    "the second refresh brings the new item only: \(String(describing: second.sources.first))")
  check(try await repository.article(url: oldest.url.absoluteString) == nil, "the deleted article stays deleted")
  while let list = try await unread.next(), !list.contains(where: { $0.title == "ATP 4" }) {}
  check(true, "the observed list updated after the second refresh")

  check(try await repository.search("href").isEmpty, "markup is not searched as text")
  check(!(try await repository.search("lighthouse").isEmpty), "the whole texts are searched")

  // A shipped mapping by name, from any folder, imported through the general importer.
  guard let mapping = try ImportMapping.shipped("hackernews") else { fatalError("no shipped hackernews mapping") }
  let hnStorage = try StorageContext(
    path: store.appendingPathComponent("hn.sqlite").path, entities: mapping.entityDescriptions)
  let story = Data(
    #"[{"id": 8863, "type": "story", "by": "dhouston", "time": 1175714200, "title": "My YC app: Dropbox", "url": "http://www.getdropbox.com/u/2/screencast.html", "score": 104}]"#
      .utf8)
  let report = try await Importer(mapping: mapping).run(story, into: hnStorage, source: "hackernews")
  check(report.inserted == 1, "a shipped mapping loaded by name imports (\(report.inserted) inserted)")
} else {
  let report = try await repository.refreshSubscriptions(options: options)
  check(report.sources.allSatisfy { $0.status == .failed }, "offline: every refresh failed")
  check(report.unavailable.isEmpty, "offline: every source still serves its cache")
  check(report.sources.map(\.cached) == [3, 2, 2], "offline: the cached articles: \(report.sources.map(\.cached))")
  let articles = try await repository.read()
  check(articles.count == 7, "offline: 7 articles readable")
  check(articles.allSatisfy { $0.fullTextHTML != nil }, "offline: every whole text kept")
  check(try await repository.counts(inFolder: ["Tech"]).unread == 0, "offline: read marks kept")
}
print("app-check: \(phase) passed")
