import Foundation
import OfflineNewsModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a large saved NewsAPI response in batches of articles, decoding on its own thread while the caller saves
/// the previous batch, so that neither the whole file nor the whole decoded array is ever in memory.
///
/// For example (with `OfflineNewsStorage`):
/// ```swift
/// if let stream = try NewsAPIFileStream(path: "everything.json") {
///   defer { stream.cancel() }
///   try await storage.saveArticles(forQuery: key, fetchedAt: .now(), batches: { try stream.next() })
///   print(stream.issues)
/// }
/// ```
///
/// The file is mapped into memory and read once, front to back; the pages of each batch are released once it is
/// decoded. Each batch is decoded and judged exactly as ``NewsAPIDecoder`` judges records (the same rules and
/// ``RecordIssue``s, with their indexes in the whole array); a URL seen twice is passed on twice (in order) and
/// reported as ``NewsAPIDecoder`` reports it, so that a save keeping "the later record wins, at the earlier one's
/// place" ends with the same rows. The rest of the envelope (`status`, `totalResults`, …) is checked after the
/// last batch: ``next()`` returns `nil` only when the whole body is valid and `"status":"ok"`, and throws otherwise
/// — save in one transaction and a truncated or invalid file leaves nothing behind.
///
/// The file must not be changed while it is read (a file truncated under the mapping ends the process).
public final class NewsAPIFileStream: @unchecked Sendable {
  // @unchecked: the mapping is read-only and outlives the producer (which holds `self`); every mutable property is
  // guarded by `condition`.

  /// Files smaller than this are better decoded whole (``FileNewsNetwork``): the default for ``init(path:minimumSize:batchSize:)``.
  public static let defaultMinimumSize = 4 * 1024 * 1024

  private let base: UnsafeMutableRawPointer
  private let size: Int
  private let batchSize: Int
  private var scanner: ArticleArrayScanner
  private let envelopePrefix: Data

  private let condition = NSCondition()
  private var ready: [[Article]] = []
  private var finished = false
  private var failure: NewsNetworkError?
  private var cancelled = false
  private var started = false
  private var recordIssues: [RecordIssue] = []
  private var total: Int?
  private var decodeTime: Double = 0

  /// Batches decoded ahead of the consumer, at most.
  private static let capacity = 2

  /// Opens `path` for streaming, or returns `nil` when it is better decoded whole: smaller than `minimumSize`, or
  /// not a top-level object with an `"articles"` array (the whole-body decoder then reports the precise error).
  ///
  /// - Parameters:
  ///   - path: a saved NewsAPI v2 response.
  ///   - minimumSize: files smaller than this are not streamed (`nil` is returned).
  ///   - batchSize: records per batch.
  /// - Throws: ``NewsNetworkError/unreadableFile(path:reason:)`` when the file cannot be opened or mapped.
  public init?(path: String, minimumSize: Int = defaultMinimumSize, batchSize: Int = 2000) throws(NewsNetworkError) {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw Self.unreadable(path) }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else { throw Self.unreadable(path) }
    guard (status.st_mode & S_IFMT) == S_IFREG else { throw Self.unreadable(path) }
    let size = Int(status.st_size)
    guard size >= max(1, minimumSize) else { return nil }
    guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
      throw Self.unreadable(path)
    }
    let bytes = UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size)
    guard let (scanner, arrayStart) = ArticleArrayScanner.openArticles(bytes) else {
      munmap(mapped, size)
      return nil
    }
    _ = madvise(mapped, size, MADV_SEQUENTIAL)
    self.base = mapped
    self.size = size
    self.batchSize = max(1, batchSize)
    self.scanner = scanner
    self.envelopePrefix = Data(bytes[..<arrayStart])
  }

  deinit { munmap(base, size) }

  /// The next batch of valid articles, in response order, or `nil` once the whole body has been read and found
  /// valid. Blocks while the batch is being decoded; starts decoding on the first call.
  ///
  /// - Throws: ``NewsNetworkError/invalidResponse(detail:)`` for a body that is not valid JSON or not of the NewsAPI
  ///   shape, ``NewsNetworkError/api(_:)`` for a `"status":"error"` body, as ``NewsAPIDecoder`` would.
  public func next() throws(NewsNetworkError) -> [Article]? {
    condition.lock()
    defer { condition.unlock() }
    if !started {
      started = true
      let thread = Thread { [self] in produce() }
      thread.name = "NewsAPIFileStream"
      thread.start()
    }
    while ready.isEmpty, !finished, failure == nil, !cancelled { condition.wait() }
    if let failure { throw failure }
    // A cancelled stream never ends normally: a save fed by it must not commit what it got so far.
    if cancelled { throw .invalidResponse(detail: "reading was cancelled before the end of the file") }
    guard !ready.isEmpty else { return nil }
    let batch = ready.removeFirst()
    condition.broadcast()
    return batch
  }

  /// Stops decoding (for instance when the save failed); later calls of ``next()`` throw. Safe to call at any time,
  /// more than once, also after the end.
  public func cancel() {
    condition.lock()
    cancelled = true
    condition.broadcast()
    condition.unlock()
  }

  /// The records skipped or partly set aside so far, in order (all of them once ``next()`` has returned `nil`).
  public var issues: [RecordIssue] { condition.withLock { recordIssues } }

  /// The number of records skipped so far (not saved).
  public var skippedCount: Int { issues.filter(\.skipped).count }

  /// The envelope's `totalResults`, known once ``next()`` has returned `nil`.
  public var totalResults: Int? { condition.withLock { total } }

  /// CPU seconds the decoding thread has spent decoding and judging records so far (it overlaps the caller's work).
  public var decodeSeconds: Double { condition.withLock { decodeTime } }

  // MARK: - The decoding thread

  private func produce() {
    let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
    var positionByURL: [String: Int] = [:]
    var index = 0
    var released = 0
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    while true {
      let started = Self.threadCPUSeconds()
      var ranges: [Range<Int>] = []
      var arrayEnd: Int?
      while ranges.count < batchSize {
        switch scanner.nextElement() {
        case .element(let range): ranges.append(range)
        case .end(let end): arrayEnd = end
        case .invalid: return fail(.invalidResponse(detail: "not valid JSON (\(size) bytes; truncated or not JSON)"))
        }
        if arrayEnd != nil { break }
      }
      var articles: [Article] = []
      var issues: [RecordIssue] = []
      if let last = ranges.last {
        // The usual record is parsed from its bytes; any other is left to JSONDecoder (see RawArticleScanner).
        var records: [RawArticle] = []
        records.reserveCapacity(ranges.count)
        for range in ranges {
          if let record = RawArticleScanner.parse(bytes, range) {
            records.append(record)
            continue
          }
          var text = Data(capacity: range.count + 2)
          text.append(0x5B)
          text.append(contentsOf: bytes[range])
          text.append(0x5D)
          do {
            records += try JSONDecoder().decode([RawArticle].self, from: text)
          } catch {
            return fail(.invalidResponse(detail: NewsAPIDecoder.describe(error, size: size)))
          }
        }
        articles.reserveCapacity(records.count)
        for record in records {
          if let article = NewsAPIDecoder.article(from: record, index: index, issues: &issues) {
            let key = article.url.absoluteString
            if positionByURL[key] != nil {
              issues.append(
                RecordIssue(
                  index: index, url: key, keyPath: "articles[\(index)].url",
                  reason: "same url as an earlier record in this response; this later record replaces it",
                  skipped: false))
            } else {
              positionByURL[key] = index
            }
            articles.append(article)
          }
          index += 1
        }
        // The batch's bytes are decoded: give their pages back (they would be read again from the file if needed).
        let upTo = last.upperBound / page * page
        if upTo > released {
          _ = madvise(base + released, upTo - released, MADV_DONTNEED)
          released = upTo
        }
      }
      let elapsed = Self.threadCPUSeconds() - started

      if let arrayEnd {
        let finalFailure = finishEnvelope(bytes, arrayEnd: arrayEnd)
        condition.withLock {
          decodeTime += elapsed
          recordIssues += issues
          if !articles.isEmpty { ready.append(articles) }
          if let finalFailure { failure = finalFailure } else { finished = true }
          condition.broadcast()
        }
        return
      }
      condition.lock()
      decodeTime += elapsed
      recordIssues += issues
      while ready.count >= Self.capacity, !cancelled { condition.wait() }
      if cancelled {
        condition.unlock()
        return
      }
      if !articles.isEmpty { ready.append(articles) }
      condition.broadcast()
      condition.unlock()
    }
  }

  private func fail(_ error: NewsNetworkError) {
    condition.withLock {
      failure = error
      condition.broadcast()
    }
  }

  /// Decodes the envelope without its array (what precedes it, `[]`, what follows it) and checks it as
  /// ``NewsAPIDecoder`` does; `nil` when it is a valid `"status":"ok"` body.
  private func finishEnvelope(_ bytes: UnsafeBufferPointer<UInt8>, arrayEnd: Int) -> NewsNetworkError? {
    var envelopeBytes = envelopePrefix
    envelopeBytes.append(contentsOf: Array("[]".utf8))
    envelopeBytes.append(contentsOf: bytes[arrayEnd...])
    let envelope: Envelope
    do {
      envelope = try JSONDecoder().decode(Envelope.self, from: envelopeBytes)
    } catch {
      return .invalidResponse(detail: NewsAPIDecoder.describe(error, size: size))
    }
    if envelope.status == "error" {
      return .api(
        NewsAPIError(
          code: .init(rawValue: envelope.code ?? "unknown"), message: envelope.message ?? "", httpStatus: nil))
    }
    guard envelope.status == "ok" else {
      let shown = envelope.status.map { "\"\($0)\"" } ?? "missing"
      return .invalidResponse(detail: "\"status\" is \(shown), expected \"ok\" or \"error\"")
    }
    condition.withLock { total = envelope.totalResults }
    return nil
  }

  private static func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  private static func unreadable(_ path: String) -> NewsNetworkError {
    let reason: String
    if !FileManager.default.fileExists(atPath: path) {
      reason = "no such file"
    } else if FileManager.default.fileExists(atPath: path + "/.") {
      reason = "is a directory"
    } else {
      reason = "cannot be read (permissions?)"
    }
    return .unreadableFile(path: path, reason: reason)
  }
}
