import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage

/// Which articles a list page of the web reader shows, as its query arguments say: `unread=1`, `starred=1`,
/// `source={feed id}`, `folder={category id}` (``ServedIdentifiers``), `page={n}` (from 1).
struct WebListQuery: Equatable {
  /// Only unread articles.
  var unreadOnly = false
  /// Only starred (bookmarked) articles.
  var starredOnly = false
  /// The source's numeric id (``ServedFeed/id``).
  var source: Int64?
  /// The folder's numeric id (``ServedIdentifiers/categoryID(forFolder:)``).
  var folder: Int64?
  /// The page, from 1.
  var page = 1

  /// Articles a page holds.
  static let pageSize = 50

  /// The list the arguments of `request` name (unknown or malformed arguments ignored).
  init(_ arguments: [(name: String, value: String)]) {
    for (name, value) in arguments {
      switch name {
      case "unread": unreadOnly = value == "1"
      case "starred": starredOnly = value == "1"
      case "source": source = Int64(value)
      case "folder": folder = Int64(value)
      case "page": page = min(max(1, Int(value) ?? 1), 100_000)
      default: continue
      }
    }
  }

  /// A list with these conditions.
  init(unreadOnly: Bool = false, starredOnly: Bool = false, source: Int64? = nil, folder: Int64? = nil, page: Int = 1) {
    self.unreadOnly = unreadOnly
    self.starredOnly = starredOnly
    self.source = source
    self.folder = folder
    self.page = page
  }

  /// The query string of this list without its page (`unread=1&source=…`), as article links carry it.
  var context: String {
    var parts: [String] = []
    if unreadOnly { parts.append("unread=1") }
    if starredOnly { parts.append("starred=1") }
    if let source { parts.append("source=\(source)") }
    if let folder { parts.append("folder=\(folder)") }
    return parts.joined(separator: "&")
  }

  /// The path of this list at `page`.
  func path(page: Int? = nil) -> String {
    var parts = context.isEmpty ? [] : [context]
    let number = page ?? self.page
    if number > 1 { parts.append("page=\(number)") }
    return "/articles" + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&"))
  }

  /// The repository filter, and the list's heading, with the feeds served (``ServedCatalog/feeds``, numbered by
  /// their sources' identities); `nil` when the source or folder id names none of them.
  func filter(feeds: [ServedFeed]) -> (filter: ArticleFilter, heading: String)? {
    var filter = ArticleFilter(unreadOnly: unreadOnly, bookmarkedOnly: starredOnly)
    var heading = starredOnly ? "Starred" : unreadOnly ? "Unread" : "All articles"
    let sources = feeds.map(\.source)
    if let source {
      guard let match = feeds.first(where: { $0.id == source })?.source else { return nil }
      filter.anyOfSources = [match.match]
      heading = NewsQuery.shown(match.name) + (unreadOnly ? " — unread" : "")
    }
    if let folder {
      guard let path = Self.folders(of: sources).first(where: { ServedIdentifiers.categoryID(forFolder: $0) == folder })
      else { return nil }
      let members = sources.filter { $0.isFiled(under: path) }.map(\.match)
      filter.anyOfSources = filter.anyOfSources.map { mine in mine.filter { m in members.contains(m) } } ?? members
      heading = path.joined(separator: " / ") + (unreadOnly ? " — unread" : "")
    }
    return (filter, heading)
  }

  /// Every folder the sources are filed in, and each folder above one, sorted.
  static func folders(of sources: [NewsSource]) -> [[String]] {
    var paths = Set<[String]>()
    for source in sources where !source.folder.isEmpty {
      for length in 1...source.folder.count { paths.insert(Array(source.folder.prefix(length))) }
    }
    return paths.sorted { $0.joined(separator: "\u{1}") < $1.joined(separator: "\u{1}") }
  }
}
