import Foundation
import OfflineNewsHTTP
import OfflineNewsNetwork
import OfflineNewsStorage
import OfflineNewsSync

/// How ``NewsRepository/refresh(_:options:progress:)`` refreshes a list of sources.
public struct RefreshOptions: Sendable {
  /// The cache policy of every source, over each source's own ``NewsSource/policy``; `nil`: each source's.
  public var policy: CachePolicy?
  /// The max-age of every source, over each source's own; `nil`: each source's.
  public var maxAge: TimeInterval?
  /// Fetch the whole text of every source's articles, not only of the sources with ``NewsSource/fullText``.
  public var fullText = false
  /// Whole texts: try pages that failed recently now instead of after ``FullTextLimits/retryAfter``
  /// (`news fetch --full-text --retry-failed`).
  public var retryFailed = false
  /// Ask sources whose last answer was `410 Gone` too (they are skipped otherwise: ``SourceRefresh/Status/gone``).
  public var askGone = false
  /// How many answered refreshes in a row must be permanently redirected (`301`, `308`) to the same address before
  /// ``NewsRepository/refresh(_:in:options:progress:)`` re-links the subscription there (at least 1). Default 2:
  /// one misconfigured redirect, or a captive portal's, does not rewrite the list; a move that stays does (a
  /// refresh that failed, or that was not asked, neither counts nor breaks the run).
  public var relinkAfter = 2
  /// Requests in flight at once, in all (at least 1). Default 8.
  public var totalLimit = 8
  /// Requests in flight at once to one host (at least 1). Default 4: RFC 9112 §9.4 sets no number and asks clients
  /// to be conservative; browsers open up to 6 connections per host, and feed hosts (Substack, Medium, YouTube,
  /// FeedBurner) often serve many of one person's subscriptions.
  public var perHostLimit = 4
  /// The HTTP transport for the pages of whole texts and their images, and for Parse Servers; `nil`: no whole
  /// texts are fetched (``RefreshReport/fullText`` is `nil`) and a Parse source fails with
  /// ``RefreshFailure/configuration(_:)``.
  public var transport: (any HTTPTransport)?
  /// Where a Parse source's eagerly downloaded files go: `<folder>/<source name, made a file name>/`; `nil`: files
  /// are not downloaded.
  public var fileFolder: URL?
  /// Parse sources: ask for every object again instead of those changed since the last sync (a re-sync).
  public var fromTheBeginning = false
  /// Parse sources, with ``fromTheBeginning``: delete the rows the server no longer lists.
  public var deleteMissing = false
  /// Parse sources with a cache-first policy: sync even while their last complete sync is fresh.
  public var force = false
  /// A test seam: called after each Parse page is staged, before it is imported (a crash there must lose nothing).
  package var afterPageStaged: (@Sendable () async throws -> Void)?

  /// The defaults; see each property.
  public init(transport: (any HTTPTransport)? = nil, fullText: Bool = false) {
    self.transport = transport
    self.fullText = fullText
  }
}

/// Why a source's refresh failed.
public enum RefreshFailure: Error, Sendable, CustomStringConvertible {
  /// The network failed (after its retries): refused, not found, timed out, an HTTP status, a body that is not news.
  case network(NewsNetworkError)
  /// The store failed.
  case storage(StorageError)
  /// A Parse class's sync stopped: its kind and message (``SyncReport/ClassReport/error``).
  case sync(SyncError.Kind, String)
  /// The source cannot be refreshed as described: a Parse class the mapping has no root for, no transport.
  case configuration(String)

  /// What failed, for a person.
  public var description: String {
    switch self {
    case .network(let error): error.description
    case .storage(let error): error.description
    case .sync(_, let message): message
    case .configuration(let message): message
    }
  }
}

/// What one source's refresh did.
public struct SourceRefresh: Sendable {
  /// The result of the refresh.
  public enum Status: String, Sendable, Hashable {
    /// The network answered and some articles are new or changed.
    case new
    /// The network answered with the articles the cache had.
    case unchanged
    /// The server answered `304 Not Modified` to a conditional request: the cache is current.
    case notModified
    /// The cache was fresh (cache-first within the max-age, cache-only, or a Parse sync skipped while fresh): the
    /// network was not asked.
    case cache
    /// The refresh failed (``SourceRefresh/failure``); ``SourceRefresh/cached`` articles are still served.
    case failed
    /// The source's last refresh was answered `410 Gone`, so it was not asked again (``SourceHealth/isGone``,
    /// ``RefreshOptions/askGone``); ``SourceRefresh/cached`` articles are still served.
    case gone
  }

  /// The source's name.
  public var source: String
  /// ``NewsSource/kindName``: `feed`, `file` or `parse`.
  public var kind: String
  /// What happened.
  public var status: Status
  /// Articles (or Parse objects) inserted, updated, and received unchanged.
  public var inserted = 0
  /// See ``inserted``.
  public var updated = 0
  /// See ``inserted``.
  public var unchanged = 0
  /// Articles of the response left out because a deletion or an eviction remembers their keys
  /// (``ArticleSaveResult/remembered``: `news delete --forget-deleted` lets them back).
  public var remembered = 0
  /// Of ``remembered``, those the store's eviction policy removed (``ArticleSaveResult/rememberedEvicted``); the
  /// others were deleted.
  public var rememberedEvicted = 0
  /// Articles the store's eviction policy removed right after this refresh's save (``ArticleSaveResult/evicted``):
  /// of any source, since the policy bounds the whole store; `0` when none, or nothing was saved.
  public var evicted = 0
  /// Articles the cache serves for the source after the refresh, whatever its ``status``: the saved list
  /// (``Status/new``, ``Status/unchanged``), the confirmed one (``Status/notModified``), or what is served without
  /// an answer (``Status/cache``, ``Status/failed``, ``Status/gone``).
  public var cached = 0
  /// Seconds since the served rows were fetched, when the cache served them.
  public var age: TimeInterval?
  /// Why it failed, with ``Status/failed``.
  public var failure: RefreshFailure?
  /// Values of the response not read (the records kept, with the value dropped) or records skipped.
  public var issues: [RecordIssue] = []
  /// Where permanent redirects (`301`, `308`, RFC 9110 §15.4) took the source's request, when they did: its new
  /// address (the answer a page or a `304`). ``NewsRepository/refresh(_:in:options:progress:)`` moves the
  /// subscription there once ``RefreshOptions/relinkAfter`` refreshes in a row agree (``permanentRedirects``); an
  /// app keeping its own list may do the same.
  public var movedPermanently: URL?
  /// The feed's own title as this refresh read it (``NewsResult/feedTitle``): what names a feed that has no name of
  /// its own (``NewsRepository/nameUntitled(_:in:titles:)``); `nil` when no feed document was read.
  public var feedTitle: String?
  /// With ``movedPermanently``: how many answered refreshes of the source in a row, this one included, permanent
  /// redirects took to that same address (the store's fetch log keeps the count between runs); `0` without it.
  public var permanentRedirects = 0
  /// Whether the server answered `410 Gone` now or before (RFC 9110 §15.5.11): the feed was removed on purpose and
  /// will not come back; later refreshes do not ask it (``Status/gone``).
  public var isGone: Bool {
    if status == .gone { return true }
    if case .network(.httpStatus(410, _)) = failure { return true }
    return false
  }
  /// A Parse source's sync report, class by class; `nil` for other kinds and for a sync skipped while fresh.
  public var sync: SyncReport?

  /// A refresh result; see the properties.
  public init(source: String, kind: String, status: Status) {
    self.source = source
    self.kind = kind
    self.status = status
  }

  /// What a read of a source's query through the repository
  /// (``NewsRepository/articles(for:policy:maxAge:limit:pages:)``) did, in the terms of a refresh of every source: the one mapping from a ``NewsResult`` to a source's result,
  /// which `news fetch` reports in every format.
  ///
  /// - Parameters:
  ///   - source: the source's name (or, for a query of no source, what names it).
  ///   - kind: ``NewsSource/kindName``.
  ///   - result: the read's result.
  public init(source: String, kind: String, result: NewsResult) {
    self.init(source: source, kind: kind, status: .new)
    age = result.age
    cached = result.rowCount
    if let error = result.networkError {
      status = .failed
      failure = .network(error)
    } else if result.origin == .cache {
      status = .cache
    } else {
      movedPermanently = result.movedPermanently
      permanentRedirects = result.permanentRedirects
      feedTitle = result.feedTitle
      if result.revalidated {
        status = .notModified
      } else if let saved = result.saved {
        issues = result.issues
        inserted = saved.inserted
        updated = saved.updated
        unchanged = saved.unchanged
        remembered = saved.remembered
        rememberedEvicted = saved.rememberedEvicted
        evicted = saved.evicted
        if saved.inserted == 0 && saved.updated == 0 { status = .unchanged }
      }
    }
  }

  /// Whether the source has nothing to show: it failed and nothing is cached.
  public var isUnavailable: Bool { status == .failed && cached == 0 }
}

/// What ``NewsRepository/refresh(_:options:progress:)`` did: one result per source, by name, and the whole texts.
public struct RefreshReport: Sendable {
  /// One result per source, ordered by name.
  public var sources: [SourceRefresh] = []
  /// The whole texts fetched after the refresh; `nil` when none was asked for or there was no transport.
  public var fullText: FullTextReport?
  /// Whether some source wanted whole texts and there was no ``RefreshOptions/transport`` to fetch them with.
  public var fullTextNeedsTransport = false
  /// The sources whose feed moved permanently and that their list now points at the new address
  /// (``NewsRepository/refresh(_:in:options:progress:)``).
  public var relinked: [SourceRefresh] = []
  /// The sources whose feed moved permanently but whose list could not be changed, and why.
  public var relinkFailures: [(source: String, error: SubscriptionChangeError)] = []
  /// The sources whose feed moved permanently onto the address another subscription of the list has: one feed
  /// subscribed twice, which is never re-linked (that would make two subscriptions of one address) and so is
  /// fetched twice by every refresh until one of them is removed. Listed at every refresh; ``SameFeed/isNew`` says
  /// which were found now for the first time.
  public var sameFeeds: [SameFeed] = []

  /// A subscription whose feed redirects permanently to another subscription's address.
  public struct SameFeed: Sendable, Hashable {
    /// The subscription whose address redirects.
    public var source: String
    /// The subscription that has the address it redirects to.
    public var sameAs: String
    /// The address the redirect leads to.
    public var url: URL
    /// Whether this refresh is the first to find it: an earlier one did not (the feed moved elsewhere or not at
    /// all, or ``sameAs`` was another subscription or had another name). The store's fetch log keeps what was
    /// found between runs (``NewsRepository/refresh(_:in:options:progress:)``), so that a notice is given once per
    /// change, not at every refresh (`news fetch` says only these).
    public var isNew = true

    /// A same feed found by a refresh; see the properties.
    public init(source: String, sameAs: String, url: URL, isNew: Bool = true) {
      self.source = source
      self.sameAs = sameAs
      self.url = url
      self.isNew = isNew
    }
  }
  /// The articles a subscription took over from the name its feed's articles were saved under before, when no
  /// subscription has that name any more (renamed outside the library, or removed and added again under another
  /// name; ``NewsRepository/refresh(_:in:options:progress:)``): their reading state and bookmarks go with them.
  public var adopted: [Adoption] = []

  /// Articles that moved from a name no subscription has to the subscription reading their feed now.
  public struct Adoption: Sendable, Hashable {
    /// The name the articles were saved under.
    public var from: String
    /// The subscription they belong to now.
    public var to: String
    /// How many moved.
    public var articles: Int

    /// An adoption of `articles` articles from the name `from` by the subscription `to`.
    public init(from: String, to: String, articles: Int) {
      self.from = from
      self.to = to
      self.articles = articles
    }
  }

  /// The subscriptions named by their feed's URL that now have their feed's own title as their name
  /// (``NewsRepository/nameUntitled(_:in:titles:)``).
  public var named: [Naming] = []

  /// A subscription renamed after its feed's title.
  public struct Naming: Sendable, Hashable {
    /// The name it had: its feed's URL.
    public var from: String
    /// Its name now: the feed's title (with ` (2)`, … when another subscription had it).
    public var to: String

    /// A rename from `from` to `to`.
    public init(from: String, to: String) {
      self.from = from
      self.to = to
    }
  }

  /// The sources with nothing to show (failed, nothing cached).
  public var unavailable: [SourceRefresh] { sources.filter(\.isUnavailable) }
}

extension FullTextReport {
  /// Adds `other`'s counts and failures to this report's.
  mutating func merge(_ other: FullTextReport) {
    fetched += other.fetched
    skipped += other.skipped
    failures += other.failures
    imagesStored += other.imagesStored
    imageFailures += other.imageFailures
    waiting = (waiting + other.waiting).sorted { $0.retryAfter < $1.retryAfter }
  }
}
