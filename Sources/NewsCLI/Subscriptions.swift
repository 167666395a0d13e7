import Foundation
import OfflineNews
import OfflineNewsModel

/// A source `news add` or `news import FILE.opml` wrote into the configuration, as `--json` prints it: `feed` (an
/// http(s) URL) or `file`, with its labels (`null` when absent).
struct NewSource: Encodable, Sendable {
  var name: String
  /// `"feed"`: the feed's URL as people are shown it (`NewsQuery.shown`: no password); `nil` for a file.
  var feed: String?
  /// `"file"`: the feed file's absolute path; `nil` for a URL.
  var file: String?
  var title: String?
  var homePage: String?
  /// The folder path as the configuration writes it (`"Tech/Swift"`), or `nil`.
  var folder: String?

  /// The JSON report of a source the library added.
  init(_ source: NewsSource) {
    name = source.name
    feed = source.url.isFileURL ? nil : NewsQuery.shown(source.url)
    file = source.url.isFileURL ? source.url.path : nil
    title = source.title == source.name ? nil : source.title
    homePage = source.homePage.map(NewsQuery.shown)
    folder = source.folder.isEmpty ? nil : SubscriptionFile.folderText(source.folder)
  }

  enum CodingKeys: String, CodingKey { case name, feed, file, title, homePage, folder }

}

/// A source that was asked for but is configured already (by an equivalent URL or path), under `name`.
struct ExistingSource: Encodable, Sendable {
  var name: String
  var url: String

  /// The sources of `changes` that were there already.
  static func all(_ changes: SubscriptionChanges) -> [ExistingSource] {
    changes.existing.map {
      ExistingSource(name: $0.name, url: $0.url.isFileURL ? $0.url.path : NewsQuery.shown($0.url))
    }
  }
}
