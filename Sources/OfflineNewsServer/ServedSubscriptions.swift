import Foundation
import OfflineNews
import OfflineNewsModel

/// Subscriptions made and changed through a sync API (Miniflux `POST /v1/feeds` and `DELETE /v1/feeds/{id}`, Reader
/// `subscription/quickadd` and `subscription/edit`): kept in the library's list (``ServedLibrary/subscriptions``,
/// `news serve`'s configuration file) by its rules — names unique without regard to case, equivalent URLs one
/// subscription among every served source — and refreshed by the server's next refresh.
enum ServedSubscriptions {
  /// Why a subscription through an API was not made.
  enum Failure: Error, CustomStringConvertible {
    /// A served source has an equivalent URL (``NewsSource/subscriptionKey``), whichever list holds it.
    case alreadySubscribed(URL, name: String)
    /// The URL could not be read as a feed (``ServedLibrary/subscriber``): the reason.
    case unreadable(String)
    /// The list refused (`invalidName`) or could not be read or written.
    case list(SubscriptionChangeError)
    /// The address is on the server's machine or network, and the server listens beyond loopback
    /// (``SubscribeTarget``): the reason.
    case refusedTarget(String)

    var description: String {
      switch self {
      case .alreadySubscribed(let url, let name): "\(NewsQuery.shown(url)) is subscribed already, as \"\(name)\""
      case .unreadable(let reason), .refusedTarget(let reason): reason
      case .list(let error): error.description
      }
    }
  }

  /// Subscribes to `url`, named `title` when given, else after the feed's own title when the library reads it
  /// (``ServedLibrary/subscriber``), else after its host; made unique among the list's names with ` (2)`, …; filed
  /// in `folder`.
  ///
  /// - Returns: the source as subscribed, or the ``Failure``.
  static func subscribe(url: URL, title: String?, folder: [String], in library: ServedLibrary) async -> Result<
    NewsSource, Failure
  > {
    if library.refusesPrivateTargets, let refusal = SubscribeTarget.refusal(url) {
      return .failure(.refusedTarget(refusal))
    }
    let given = title.flatMap { $0.trimmingWhiteSpace.isEmpty ? nil : $0 }
    var source = NewsSource(name: given ?? url.host ?? url.absoluteString, url: url, folder: folder)
    if let subscriber = library.subscriber {
      do {
        var candidate: SubscriptionCandidate
        switch try await subscriber.inspect(url) {
        case .feed(let feed): candidate = feed
        case .page(let page):
          guard let first = page.candidates.first else {
            return .failure(.unreadable("\(NewsQuery.shown(url)): announces no feed"))
          }
          candidate = await subscriber.resolve(first)
        case .subscriptionList:
          return .failure(.unreadable("\(NewsQuery.shown(url)) is an OPML subscription list, not a feed"))
        }
        if let failure = candidate.failure { return .failure(.unreadable(failure.description)) }
        // Where redirects took the read: a public address may redirect to a private one.
        if library.refusesPrivateTargets, let refusal = SubscribeTarget.refusal(candidate.source.url) {
          return .failure(.refusedTarget(refusal))
        }
        source = NewsSource(
          name: given ?? candidate.source.name, url: candidate.source.url, folder: folder,
          homePage: candidate.source.homePage)
      } catch {
        return .failure(.unreadable(error.description))
      }
    }
    // Every served source, the configuration's and the store's: a URL subscribed in either is subscribed.
    if let served = try? await library.sources(),
      let existing = served.first(where: { $0.subscriptionKey == source.subscriptionKey })
    {
      return .failure(.alreadySubscribed(existing.url, name: existing.name))
    }
    do {
      let changes = try await library.subscriptions.subscribe([source])
      if let existing = changes.existing.first {
        return .failure(.alreadySubscribed(existing.url, name: existing.name))
      }
      return .success(changes.added.first ?? source)
    } catch {
      return .failure(.list(error))
    }
  }

  /// Why a served source that no list holds cannot be ended, renamed or moved through an API: the articles of a file
  /// imported or a URL read once (``ServedLibrary/servedSources()``), or a source of a list the server does not edit.
  static func unchangeable(_ source: NewsSource) -> String {
    ServedLibrary.isImported(source)
      ? "\"\(source.name)\" holds the articles of a file imported (news import) or a URL read once (news fetch --url):"
        + " it is no subscription; news delete removes articles"
      : "\"\(source.name)\" is a source of the configuration file: change it there"
  }

  /// Ends, renames or moves the subscription `name` in the library's list, else in the store's (a subscription made
  /// by an older `news serve`).
  ///
  /// - Throws: ``SubscriptionChangeError/notSubscribed(_:)`` when neither list holds it; the list's failures.
  static func change(
    _ name: String, in library: ServedLibrary,
    _ body: (any SubscriptionList) async throws(SubscriptionChangeError) -> Void
  ) async throws(SubscriptionChangeError) {
    if try await library.subscriptions.source(named: name) != nil {
      try await body(library.subscriptions)
    } else if try await library.repository.storedSubscriptions.source(named: name) != nil {
      try await body(library.repository.storedSubscriptions)
    } else {
      throw .notSubscribed(name)
    }
  }
}
