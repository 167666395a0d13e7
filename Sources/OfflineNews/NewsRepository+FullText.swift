import Foundation

/// Bounds on fetching articles' pages for their whole text.
public struct FullTextLimits: Sendable, Hashable {
  /// Pages downloaded at once, in all (default 4).
  package var concurrency: Int
  /// Pages downloaded at once from one host (default 2).
  package var perHost: Int
  /// The largest page read, in bytes (default 5 MiB); a larger one is a failure, not a truncated article.
  package var maxPageBytes: Int
  /// How long a failed page (or image) waits before it is tried again, in seconds (default one hour).
  package var retryAfter: TimeInterval
  /// Bounds on the images kept with each whole text (in the repository's ``NewsRepository/imageFolder``).
  package var images: ImageLimits

  /// Creates limits.
  public init(
    concurrency: Int = 4, perHost: Int = 2, maxPageBytes: Int = 5 << 20, retryAfter: TimeInterval = 3600,
    images: ImageLimits = ImageLimits()
  ) {
    self.concurrency = concurrency
    self.perHost = perHost
    self.maxPageBytes = maxPageBytes
    self.retryAfter = retryAfter
    self.images = images
  }
}

/// What a full-text fetch did.
public struct FullTextReport: Sendable, Hashable {
  /// Articles whose whole text was fetched and stored.
  public var fetched = 0
  /// Articles that had theirs already, or failed recently (not tried again yet).
  public var skipped = 0
  /// Articles whose page could not be fetched or read, with the reason (noted with the article, retried later).
  public var failures: [(key: String, reason: String)] = []
  /// Images stored for the articles handled (now or by an earlier call).
  public var imagesStored = 0
  /// Images that could not be stored, with the reason (noted in their rows, retried later).
  public var imageFailures: [(key: String, reason: String)] = []

  public static func == (lhs: FullTextReport, rhs: FullTextReport) -> Bool {
    lhs.fetched == rhs.fetched && lhs.skipped == rhs.skipped
      && lhs.failures.map(\.key) == rhs.failures.map(\.key) && lhs.failures.map(\.reason) == rhs.failures.map(\.reason)
      && lhs.imagesStored == rhs.imagesStored && lhs.imageFailures.map(\.key) == rhs.imageFailures.map(\.key)
      && lhs.imageFailures.map(\.reason) == rhs.imageFailures.map(\.reason)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(fetched)
    hasher.combine(skipped)
    hasher.combine(failures.map(\.key))
    hasher.combine(imagesStored)
  }
}

extension NewsRepository {
  /// Fetches the pages of `articles` that have no whole text yet, extracts each page's readable article
  /// (``ReadabilityExtractor``, after Mozilla Readability) and stores it beside the article (`FullText`:
  /// searchable; the source's own fields are never changed).
  ///
  /// Downloads go through `transport` (its timeout, retries and same-origin redirects), at most
  /// `FullTextLimits.concurrency` at once and `FullTextLimits.perHost` per host, each at most
  /// `FullTextLimits.maxPageBytes`. A page that fails — a transport error, an HTTP error status, a body that is not
  /// HTML, too large, or without a readable article — is noted with the article (`fullTextError`) and tried again
  /// after `FullTextLimits.retryAfter`; it never fails the call. Articles without a link (a Parse object) are
  /// skipped.
  ///
  /// With an `imageFolder`, the lead image (``Article/imageURL``) and the images of each whole text are kept
  /// offline too, within `FullTextLimits.images` (see ``ImageLimits``), through the same transport and the same
  /// bounds on concurrency; the stored HTML then links to the files (`src`, the remote address kept in
  /// `data-remote-src`). An image that fails is noted in its row (`ArticleImage.error`) and tried again by a later
  /// call after `FullTextLimits.retryAfter`, for articles whose whole text is already stored too; it never fails
  /// the article or the call.
  public func fetchFullText(
    for articles: [Article], using transport: any HTTPTransport, limits: FullTextLimits = FullTextLimits()
  ) async -> FullTextReport {
    var report = FullTextReport()
    let linked = articles.filter { $0.displayURL != nil }
    let keys = linked.map(\.url.absoluteString)
    let clock = self.clock
    let retryBefore = Timestamp(millisecondsSince1970: clock().millisecondsSince1970 - Int64(limits.retryAfter * 1000))
    let needed = Set((try? await storage.keysNeedingFullText(keys, failedBefore: retryBefore)) ?? [])
    // Whole texts stored before whose images are not all stored yet: their images only are tried again.
    let imagesOnly =
      imageFolder == nil
      ? [] : Set((try? await storage.keysNeedingImages(keys, failedBefore: retryBefore)) ?? []).subtracting(needed)
    report.skipped = articles.count - needed.count
    let limiter = HostLimiter(total: limits.concurrency, perHost: limits.perHost)
    let budget = ByteBudget(limits.images.maxBytesPerFetch)
    let extractor = ReadabilityExtractor()
    let storage = self.storage
    typealias Outcome = (key: String, failure: String?, fetched: Bool, images: Int, imageFailures: [String])
    await withTaskGroup(of: Outcome.self) { group in
      for article in linked where needed.contains(article.url.absoluteString) {
        guard let link = article.displayURL else { continue }
        let key = article.url.absoluteString
        group.addTask {
          let host = link.host ?? ""
          await limiter.acquire(host)
          let outcome = await Self.readable(link, transport: transport, extractor: extractor, limits: limits)
          await limiter.release(host)
          let now = clock()
          switch outcome {
          case .success(let text):
            do {
              try await storage.saveFullText(text, forKey: key, at: now)
            } catch {
              return (key, "the store refused it: \(error)", false, 0, [])
            }
            let images = await self.keepImages(
              key: key, html: text.html, lead: article.imageURL, transport: transport, limits: limits.images,
              limiter: limiter, budget: budget)
            return (key, nil, true, images.stored, images.failures)
          case .failure(let problem):
            try? await storage.recordFullTextFailure(problem.reason, forKey: key, at: now)
            return (key, problem.reason, false, 0, [])
          }
        }
      }
      for article in linked where imagesOnly.contains(article.url.absoluteString) {
        let key = article.url.absoluteString
        group.addTask {
          guard let html = try? await storage.article(url: key)?.fullTextHTML else { return (key, nil, false, 0, []) }
          let images = await self.keepImages(
            key: key, html: html, lead: article.imageURL, transport: transport, limits: limits.images,
            limiter: limiter, budget: budget)
          return (key, nil, false, images.stored, images.failures)
        }
      }
      for await outcome in group {
        if let failure = outcome.failure { report.failures.append((outcome.key, failure)) }
        if outcome.fetched { report.fetched += 1 }
        report.imagesStored += outcome.images
        report.imageFailures += outcome.imageFailures.map { (outcome.key, $0) }
      }
    }
    report.failures.sort { $0.key < $1.key }
    report.imageFailures.sort { ($0.key, $0.reason) < ($1.key, $1.reason) }
    return report
  }

  struct PageProblem: Error {
    var reason: String
  }

  /// One page: downloaded, checked, its readable article extracted.
  static func readable(
    _ link: URL, transport: any HTTPTransport, extractor: ReadabilityExtractor, limits: FullTextLimits
  ) async -> Result<FullText, PageProblem> {
    let response: HTTPResponse
    do {
      // No secret is sent, so a page that moved to another origin (http → https, another host) is followed.
      response = try await transport.send(
        HTTPRequest(
          url: link, headers: ["Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"],
          maxBodyBytes: limits.maxPageBytes, redirects: .anyOrigin))
    } catch {
      return .failure(PageProblem(reason: error.description))
    }
    if let size = response.bodyLimitExceeded {
      return .failure(PageProblem(reason: "the page is larger than \(limits.maxPageBytes) bytes (\(size))"))
    }
    guard (200..<300).contains(response.status) else {
      return .failure(PageProblem(reason: "HTTP \(response.status)"))
    }
    let type = response.headers["content-type"]?.lowercased() ?? ""
    if !type.isEmpty, !(type.contains("html") || type.contains("xml")) {
      return .failure(PageProblem(reason: "not a web page (\(type))"))
    }
    let charset = type.split(separator: ";").compactMap { part -> String? in
      let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      return pair.count == 2 && pair[0] == "charset"
        ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
    }.first
    let article: ReadableArticle?
    do {
      // Relative links resolve against where the page was found.
      article = try extractor.extract(from: response.body, url: response.url, charset: charset)
    } catch {
      return .failure(PageProblem(reason: "the page could not be read as HTML: \(error)"))
    }
    guard let article, !article.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      return .failure(PageProblem(reason: "no readable article in the page"))
    }
    return .success(FullText(html: article.content, text: article.text))
  }
}
