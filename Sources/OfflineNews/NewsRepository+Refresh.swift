import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsSync

extension NewsRepository {
  /// Refreshes every source of a list — the "refresh all" of a feed reader — and then fetches the whole texts of
  /// the sources that ask for them.
  ///
  /// - Feeds, files and NewsAPI queries are read through ``articles(for:policy:maxAge:limit:pages:)`` with each
  ///   source's policy (network-first by default) and max-age, so conditional requests, de-duplication and the
  ///   offline fallback apply. They run concurrently, at most ``RefreshOptions/totalLimit`` requests in flight and
  ///   ``RefreshOptions/perHostLimit`` per host: a source's place is given back once its request is answered, so the
  ///   next source is asked while the answered one is decoded and saved.
  /// - A source whose last answer was `410 Gone` is not asked (``SourceRefresh/Status/gone``) unless
  ///   ``RefreshOptions/askGone``.
  /// - An origin (RFC 6454) found unreachable — refused, not found, timed out, not connected, TLS — is not asked
  ///   again in the run: its other sources are served from the cache at once with the same kind of error.
  /// - Parse sources are then synced one after the other (``sync(_:options:progress:)``).
  /// - One failing source never stops the others and the call never throws: each source's ``SourceRefresh`` says
  ///   what happened and what the cache still serves.
  /// - Whole texts (``fetchFullText(for:using:limits:)``), with images when the repository has an image folder,
  ///   for the sources with ``NewsSource/fullText`` or all of them with ``RefreshOptions/fullText``.
  ///
  /// - Parameters:
  ///   - sources: the sources, names unique.
  ///   - progress: called once per source, as each finishes (from any thread).
  /// - Returns: one result per source, ordered by name, and the whole-text report.
  public func refresh(
    _ sources: [NewsSource], options: RefreshOptions = RefreshOptions(),
    progress: @escaping @Sendable (SourceRefresh) -> Void = { _ in }
  ) async -> RefreshReport {
    // One run's memory of unreachable origins, over the repository's own network, storage and settings; a source's
    // place in the limiter is given back once its request is answered, not after its save (``AnsweredNetwork``).
    let limiter = HostLimiter(total: options.totalLimit, perHost: options.perHostLimit)
    let run = over(AnsweredNetwork(base: UnreachableOrigins(network), limiter: limiter))
    var report = RefreshReport()
    await withTaskGroup(of: SourceRefresh.self) { group in
      for source in sources {
        guard case .articles(let url) = source.kind else { continue }
        group.addTask {
          if !options.askGone, let gone = await run.goneResult(source) {
            progress(gone)
            return gone
          }
          let host = url.host ?? url.path
          let key = source.query.url.absoluteString
          await limiter.acquire(host, for: key)
          let result = await run.refreshArticles(
            source, policy: options.policy ?? source.policy ?? .networkFirst, maxAge: options.maxAge ?? source.maxAge)
          await limiter.finished(host, for: key)
          progress(result)
          return result
        }
      }
      for await result in group { report.sources.append(result) }
    }
    for source in sources.sorted(by: { $0.name < $1.name }) {
      guard case .parse = source.kind else { continue }
      let result = await sync(source, options: options)
      progress(result)
      report.sources.append(result)
    }
    report.sources.sort { $0.source < $1.source }
    let wanting = sources.filter { options.fullText || $0.fullText }
    if !wanting.isEmpty {
      if let transport = options.transport {
        var fullText = FullTextReport()
        for source in wanting {
          guard let cached = try? await cachedArticles(for: source.query), !cached.articles.isEmpty else { continue }
          fullText.merge(
            await fetchFullText(for: cached.articles, using: transport, retryFailed: options.retryFailed))
        }
        report.fullText = fullText
      } else {
        report.fullTextNeedsTransport = true
      }
    }
    return report
  }

  /// The result of a source not asked because its last answer was `410 Gone`: what the cache serves; `nil` when it is
  /// not gone.
  func goneResult(_ source: NewsSource) async -> SourceRefresh? {
    guard let health = try? await health(of: source), health.isGone else { return nil }
    var result = SourceRefresh(source: source.name, kind: source.kindName, status: .gone)
    let cached = try? await cachedArticles(for: source.query)
    result.cached = cached?.articles.count ?? 0
    result.age = cached?.age
    result.failure = .network(.httpStatus(410, bodyPrefix: ""))
    return result
  }

  /// One feed, file or query through the repository; never throws (a failure is the result's).
  func refreshArticles(_ source: NewsSource, policy: CachePolicy, maxAge: TimeInterval?) async -> SourceRefresh {
    var outcome = SourceRefresh(source: source.name, kind: source.kindName, status: .new)
    do {
      // Counts are reported, not rows: a network answer's rows are not read back (``NewsResult/storedCount``).
      let result = try await articles(
        for: source.query, policy: policy, maxAge: maxAge, limit: nil, pages: 1, readsBack: false)
      outcome = SourceRefresh(source: source.name, kind: source.kindName, result: result)
    } catch {
      // The network's failure, not the repository's "network failed (…) and nothing is cached": `cached` is 0.
      outcome.status = .failed
      switch error {
      case .networkFailedAndCacheEmpty(_, let network), .networkFailed(_, let network):
        outcome.failure = .network(network)
      case .invalidSearch(let error):  // not thrown by a refresh, which searches nothing
        outcome.failure = .configuration(error.description)
      case .storage(let storageError, _):
        outcome.failure = .storage(storageError)
        // The store may still be read (a read-only file or folder, a full disk): say what it serves.
        if let cached = try? await cachedArticles(for: source.query) {
          outcome.cached = cached.articles.count
          outcome.age = cached.age
        }
      }
    }
    return outcome
  }

  /// Syncs a Parse source incrementally (``ParseSyncEngine``): only the objects changed since its last sync, page
  /// by page, each page staged before it is imported so that an interrupted sync loses nothing. A source with a
  /// cache-first ``NewsSource/policy`` and a ``NewsSource/maxAge`` is skipped (``SourceRefresh/Status/cache``)
  /// while its last complete sync is younger, unless ``RefreshOptions/force`` or
  /// ``RefreshOptions/fromTheBeginning``. A feed, file or query source is refreshed network-only instead, as
  /// ``refresh(_:options:progress:)`` refreshes it.
  ///
  /// The storage context must have been opened with ``ParseSource/entities``. Image files no article names any
  /// more (after `deleteMissing` or an eviction) are removed afterwards.
  ///
  /// - Parameter progress: called after each imported page of a Parse class.
  /// - Returns: the counts summed over the classes, the report class by class (``SourceRefresh/sync``), and for a
  ///   failed class (the others go on) its failure and what the cache still serves.
  public func sync(
    _ source: NewsSource, options: RefreshOptions = RefreshOptions(),
    progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
  ) async -> SourceRefresh {
    guard case .parse(let parse) = source.kind else {
      return await refreshArticles(source, policy: .networkOnly, maxAge: options.maxAge ?? source.maxAge)
    }
    var outcome = SourceRefresh(source: source.name, kind: source.kindName, status: .new)
    if source.policy == .cacheFirst, let maxAge = source.maxAge, !options.force, !options.fromTheBeginning,
      let synced = try? await lastCompleteSync(source.name, parse), clock().date.timeIntervalSince(synced.date) < maxAge
    {
      outcome.status = .cache
      outcome.age = max(0, clock().date.timeIntervalSince(synced.date))
      outcome.cached = (try? await cachedArticles(for: source.query).articles.count) ?? 0
      return outcome
    }
    guard let transport = options.transport else {
      outcome.status = .failed
      outcome.failure = .configuration("no HTTP transport to reach the Parse Server with")
      return outcome
    }
    let classes: [ParseClassSync]
    do {
      classes = try parse.classSyncs()
    } catch {
      outcome.status = .failed
      outcome.failure = error
      return outcome
    }
    var engine = ParseSyncEngine(
      source: source.name, server: parse.server, classes: classes, storage: storage, transport: transport,
      fileFolder: options.fileFolder?.appendingPathComponent(Self.fileFolderName(source.name)))
    let clock = self.clock
    engine.now = { clock().date }
    engine.fromTheBeginning = options.fromTheBeginning
    engine.deleteMissing = options.deleteMissing
    if let afterPageStaged = options.afterPageStaged { engine.pageStaged = { _ in try await afterPageStaged() } }
    let report = await engine.sync(progress: progress)
    _ = await removeUnusedImages()
    outcome.sync = report
    for part in report.classes {
      outcome.inserted += part.inserted
      outcome.updated += part.updated
      outcome.unchanged += part.unchanged
      outcome.remembered += part.remembered
      outcome.rememberedEvicted += part.rememberedEvicted
    }
    if let failed = report.classes.first(where: { $0.error != nil }), let message = failed.error {
      outcome.status = .failed
      outcome.failure = .sync(failed.errorKind ?? .server, message)
      let cached = try? await cachedArticles(for: source.query)
      outcome.cached = cached?.articles.count ?? 0
      outcome.age = cached?.age
    } else {
      if outcome.inserted == 0 && outcome.updated == 0 { outcome.status = .unchanged }
      outcome.cached = (try? await cachedArticles(for: source.query).articles.count) ?? 0
    }
    return outcome
  }

  /// When every class of a Parse source was last brought up to date: the oldest `syncedAt` of its classes (`nil`
  /// when one never was, or has an error since).
  func lastCompleteSync(_ name: String, _ parse: ParseSource) async throws -> Timestamp? {
    let names = Set(parse.classes.map(\.name))
    let classes = try await SyncBookkeeping.status(source: name, in: storage).filter { names.contains($0.className) }
    guard Set(classes.map(\.className)) == names, classes.allSatisfy({ $0.lastError == nil }) else { return nil }
    let times = classes.compactMap(\.syncedAt)
    return times.count == classes.count ? times.min() : nil
  }

  /// A folder name for a source's files: its name with anything but ASCII letters, digits, `-` and `_` replaced by
  /// `_`.
  package static func fileFolderName(_ name: String) -> String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
    let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
    return cleaned.isEmpty ? "_" : cleaned
  }
}

/// The network of one refresh of many sources: a source's place in the run's ``HostLimiter`` (taken for its URL) is
/// given back as soon as its request is answered or fails — the limits bound requests in flight
/// (``RefreshOptions/perHostLimit``) — so that the next source's request goes out while this one's articles are
/// saved (the writer saves one source at a time, each in a transaction of its own).
private struct AnsweredNetwork: NewsNetwork {
  let base: any NewsNetwork
  let limiter: HostLimiter

  func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    do {
      let page = try await base.fetch(query)
      await limiter.answered(query.url.absoluteString)
      return page
    } catch {
      await limiter.answered(query.url.absoluteString)
      throw error
    }
  }

  func fetch(_ request: NewsRequest) async throws(NewsNetworkError) -> NewsResponse {
    do {
      let response = try await base.fetch(request)
      await limiter.answered(request.query.url.absoluteString)
      return response
    } catch {
      await limiter.answered(request.query.url.absoluteString)
      throw error
    }
  }
}
