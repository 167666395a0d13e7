import Foundation
import OfflineNews

/// Subscriptions made through a sync API (Miniflux `POST /v1/feeds`, Reader `subscription/quickadd` and
/// `subscription/edit`): kept in the store's subscription list (``NewsRepository/subscribe(_:)``), refreshed by the
/// server's next refresh — nothing is fetched while the client waits.
enum ServedSubscriptions {
  /// Subscribes to `url`, named `title` when given, else after its host (`example.org`), made unique among every
  /// served source with ` (2)`, ` (3)`, …; filed in `folder`.
  static func subscribe(url: URL, title: String?, folder: [String], in library: ServedLibrary) async -> Result<
    NewsSource, SubscriptionChangeError
  > {
    let taken: Set<String>
    do {
      taken = Set(try await library.sources().map { $0.name.lowercased() })
    } catch {
      taken = []
    }
    let base =
      title.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? url.host ?? url.absoluteString
    var name = base
    var number = 2
    while taken.contains(name.lowercased()) {
      name = "\(base) (\(number))"
      number += 1
    }
    let source = NewsSource(name: name, url: url, folder: folder)
    do {
      try await library.repository.subscribe(source)
      return .success(source)
    } catch {
      return .failure(error)
    }
  }
}
