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
/// The file is read once, front to back, a window of ``defaultReadSize`` bytes at a time (a record larger than
/// the window grows it), so that memory holds a window and a few batches, not the file. Each batch is decoded and judged exactly as ``NewsAPIDecoder`` judges records (the same rules and
/// ``RecordIssue``s, with their indexes in the whole array); a URL seen twice is passed on twice (in order) and
/// reported as ``NewsAPIDecoder`` reports it, so that a save keeping "the later record wins, at the earlier one's
/// place" ends with the same rows. The rest of the envelope (`status`, `totalResults`, …) is checked after the
/// last batch: ``next()`` returns `nil` only when the whole body is valid and `"status":"ok"`, and throws otherwise
/// — save in one transaction and a truncated or invalid file leaves nothing behind.
///
/// The file should not be changed while it is read. One that is cut short meanwhile fails like a truncated file
/// (``next()`` throws, naming how much of it could be read); it is read with `read(2)`, never mapped, so that no
/// change of the file can fault the process.
package final class NewsAPIFileStream: @unchecked Sendable {
  // @unchecked: `fd`, `window`, `filled`, `atEnd` and `scanner` are used by `init` and then only by the decoding
  // thread (which holds `self`); every other mutable property is guarded by `condition`.

  /// Files smaller than this are better decoded whole (``FileNewsNetwork``): the default for ``init(path:minimumSize:batchSize:)``.
  package static let defaultMinimumSize = 4 * 1024 * 1024

  /// Bytes read from the file at a time: the default for ``init(path:minimumSize:batchSize:readSize:)``.
  package static let defaultReadSize = 1 << 20

  private let path: String
  private let fd: Int32
  /// The file's size when it was opened.
  private let size: Int
  private let batchSize: Int
  private let readSize: Int
  /// The bytes of the file read and not yet consumed, from `window[0]` to `window[filled]`.
  private var window: UnsafeMutableBufferPointer<UInt8>
  private var filled = 0
  /// Bytes of the file before `window[0]`.
  private var windowOffset = 0
  /// The file has been read to its end.
  private var atEnd = false
  private var readError: Int32 = 0
  private var scanner: ArticleArrayScanner
  private var envelopePrefix: Data

  private let condition = NSCondition()
  private var ready: [[Article]] = []
  private var finished = false
  private var failure: NewsNetworkError?
  private var cancelled = false
  private var started = false
  private var recordIssues: [RecordIssue] = []
  private var total: Int?
  private var decodeTime: Double = 0
  private var waitTime: Double = 0

  /// Batches decoded ahead of the consumer, at most. The next batch is decoded only once there is room for it, so
  /// that memory holds the batch being saved and the one being decoded or waiting, not more: decoding a batch takes
  /// a few hundredths of a second, saving it about ten times as long (`news-bench --child-import`, 100k articles:
  /// docs/PERFORMANCE.md).
  private static let capacity = 1

  /// Opens `path` for streaming, or returns `nil` when it is better decoded whole: smaller than `minimumSize`, or
  /// not a top-level object with an `"articles"` array (the whole-body decoder then reports the precise error).
  ///
  /// - Parameters:
  ///   - path: a saved NewsAPI v2 response.
  ///   - minimumSize: files smaller than this are not streamed (`nil` is returned).
  ///   - batchSize: records per batch.
  ///   - readSize: bytes read from the file at a time (the window grows for a longer record).
  /// - Throws: ``NewsNetworkError/unreadableFile(path:reason:)`` when the file cannot be opened or read.
  package init?(
    path: String, minimumSize: Int = defaultMinimumSize, batchSize: Int = 2000, readSize: Int = defaultReadSize
  ) throws(NewsNetworkError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Self.unreadable(path, errno: errno) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      let code = errno
      close(fd)
      throw Self.unreadable(path, errno: code)
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      close(fd)
      throw Self.unreadable(path, errno: (status.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EINVAL)
    }
    let size = Int(status.st_size)
    guard size >= max(1, minimumSize) else {
      close(fd)
      return nil
    }
    _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    self.path = path
    self.fd = fd
    self.size = size
    self.batchSize = max(1, batchSize)
    self.readSize = max(1, readSize)
    self.window = .allocate(capacity: max(1, readSize))
    self.scanner = ArticleArrayScanner(resuming: UnsafeBufferPointer(start: nil, count: 0), at: 0, elementsSeen: 0)
    self.envelopePrefix = Data()
    // The envelope up to the array: read until it is found, or the file ends (then it is decoded whole, which
    // reports the precise error). Every property is set: leaving `init` now runs `deinit`, which closes and frees.
    while true {
      refill(keepingFrom: 0)
      if readError != 0 {
        throw Self.unreadable(path, errno: readError)
      }
      if let (scanner, arrayStart) = ArticleArrayScanner.openArticles(
        UnsafeBufferPointer(start: window.baseAddress, count: filled))
      {
        self.scanner = scanner
        self.envelopePrefix = Data(window[..<arrayStart])
        return
      }
      if atEnd { return nil }
    }
  }

  deinit {
    close(fd)
    window.deallocate()
  }

  /// Drops the window's bytes before `start`, then reads more of the file after what it holds (growing the window
  /// when it is full): after it, the window holds more bytes than before, or the file has ended (``atEnd``) or
  /// failed to read (``readError``). The scanner is re-created over the new window, at its start (the byte that
  /// was at `start`).
  private func refill(keepingFrom start: Int) {
    let seen = scanner.elementsSeen
    if start > 0 {
      let kept = filled - start
      if kept > 0, let base = window.baseAddress { memmove(base, base + start, kept) }
      filled = kept
      windowOffset += start
    }
    if filled == window.count {
      let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: window.count * 2)
      _ = larger.initialize(fromContentsOf: window)
      window.deallocate()
      window = larger
    }
    while !atEnd, readError == 0, let base = window.baseAddress {
      let count = read(fd, base + filled, min(readSize, window.count - filled))
      if count > 0 {
        filled += count
        break
      } else if count == 0 {
        atEnd = true
      } else if errno != EINTR {
        readError = errno
      }
    }
    scanner = ArticleArrayScanner(
      resuming: UnsafeBufferPointer(start: window.baseAddress, count: filled), at: 0, elementsSeen: seen)
  }

  /// The next batch of valid articles, in response order, or `nil` once the whole body has been read and found
  /// valid. Blocks while the batch is being decoded; starts decoding on the first call.
  ///
  /// - Throws: ``NewsNetworkError/invalidResponse(detail:)`` for a body that is not valid JSON or not of the NewsAPI
  ///   shape, ``NewsNetworkError/api(_:)`` for a `"status":"error"` body, as ``NewsAPIDecoder`` would.
  package func next() throws(NewsNetworkError) -> [Article]? {
    condition.lock()
    defer { condition.unlock() }
    if !started {
      started = true
      let thread = Thread { [self] in produce() }
      thread.name = "NewsAPIFileStream"
      thread.start()
    }
    if ready.isEmpty, !finished, failure == nil, !cancelled {
      let waitStarted = DispatchTime.now().uptimeNanoseconds
      while ready.isEmpty, !finished, failure == nil, !cancelled { condition.wait() }
      waitTime += Double(DispatchTime.now().uptimeNanoseconds - waitStarted) / 1e9
    }
    if let failure { throw failure }
    // A cancelled stream never ends normally: a save fed by it must not commit what it got so far.
    if cancelled { throw .invalidResponse(BodyProblem(.cancelled, "reading was cancelled before the end of the file")) }
    guard !ready.isEmpty else { return nil }
    let batch = ready.removeFirst()
    condition.broadcast()
    return batch
  }

  /// Stops decoding (for instance when the save failed); later calls of ``next()`` throw. Safe to call at any time,
  /// more than once, also after the end.
  package func cancel() {
    condition.lock()
    cancelled = true
    condition.broadcast()
    condition.unlock()
  }

  /// The records skipped or partly set aside so far, in order (all of them once ``next()`` has returned `nil`).
  package var issues: [RecordIssue] { condition.withLock { recordIssues } }

  /// The number of records skipped so far (not saved).
  package var skippedCount: Int { issues.filter(\.skipped).count }

  /// The envelope's `totalResults`, known once ``next()`` has returned `nil`.
  package var totalResults: Int? { condition.withLock { total } }

  /// CPU seconds the decoding thread has spent decoding and judging records so far (it overlaps the caller's work).
  package var decodeSeconds: Double { condition.withLock { decodeTime } }

  /// Seconds the callers of ``next()`` have spent waiting for a batch to be decoded.
  package var waitSeconds: Double { condition.withLock { waitTime } }

  // MARK: - The decoding thread

  private func produce() {
    // The duplicate report keeps 16 bytes per distinct URL (a digest), not the URL itself.
    var seenURLs = SeenKeys()
    var index = 0
    while true {
      let stopped = condition.withLock {
        while ready.count >= Self.capacity, !cancelled { condition.wait() }
        return cancelled
      }
      if stopped { return }
      let started = Self.threadCPUSeconds()
      var records: [RawArticle] = []
      records.reserveCapacity(batchSize)
      var delimited = 0
      var arrayEnd: Int?
      while delimited < batchSize {
        let mark = scanner.position
        let step = scanner.nextElement()
        switch step {
        case .element(let range):
          delimited += 1
          // The usual record is parsed from its bytes; any other is left to JSONDecoder (see RawArticleScanner).
          let bytes = UnsafeBufferPointer(start: window.baseAddress, count: filled)
          do {
            try RawArticleScanner.append(bytes, range, to: &records)
          } catch {
            return fail(.invalidResponse(NewsAPIDecoder.describedProblem(error, size: size)))
          }
        case .end(let end): arrayEnd = end
        case .invalid:
          // Input ran out (the scanner stopped at the window's end, not at a misplaced byte): read on and delimit
          // the element again from where it started.
          if scanner.position >= filled, !atEnd, readError == 0 {
            refill(keepingFrom: mark)
            continue
          }
          let early = scanner.position >= filled ? endedEarly() : nil
          if early == nil, scanner.position >= filled, atEnd {
            // The file ends inside the "articles" array: cut off.
            return fail(.invalidResponse(BodyProblem(.truncated, NewsAPIDecoder.truncated(size: size))))
          }
          return fail(
            early
              ?? .invalidResponse(BodyProblem(.invalidJSON, "not valid JSON (\(size) bytes; truncated or not JSON)")))
        }
        if arrayEnd != nil { break }
      }
      var articles: [Article] = []
      var issues: [RecordIssue] = []
      articles.reserveCapacity(records.count)
      // By index: iterating the records would copy each (a retain of every text it holds).
      for position in records.indices {
        if let article = NewsAPIDecoder.article(from: records[position], index: index, issues: &issues) {
          let key = article.url.absoluteString
          if !seenURLs.insert(key) {
            issues.append(
              RecordIssue(
                index: index, url: key, keyPath: "articles[\(index)].url",
                reason: "same url as an earlier record in this response, which this later one replaces",
                outcome: .replacedEarlier))
          }
          articles.append(article)
        }
        index += 1
      }
      let elapsed = Self.threadCPUSeconds() - started

      if let arrayEnd {
        let finalFailure = finishEnvelope(arrayEnd: arrayEnd)
        condition.withLock {
          decodeTime += elapsed
          recordIssues += issues
          if !articles.isEmpty { ready.append(articles) }
          if let finalFailure { failure = finalFailure } else { finished = true }
          condition.broadcast()
        }
        return
      }
      condition.withLock {
        decodeTime += elapsed
        recordIssues += issues
        if !articles.isEmpty { ready.append(articles) }
        condition.broadcast()
      }
    }
  }

  /// The error for a file that could not be read to its end, or that is shorter than when it was opened; `nil`
  /// when it was read whole.
  private func endedEarly() -> NewsNetworkError? {
    if readError != 0 {
      return Self.unreadable(path, errno: readError)
    }
    let read = windowOffset + filled
    guard read < size else { return nil }
    return .invalidResponse(
      BodyProblem(
        .truncated, "the file was cut short while it was read (\(read) of its \(size) bytes; was it changed meanwhile?)"
      ))
  }

  private func fail(_ error: NewsNetworkError) {
    condition.withLock {
      failure = error
      condition.broadcast()
    }
  }

  /// Decodes the envelope without its array (what precedes it, `[]`, what follows it) and checks it as
  /// ``NewsAPIDecoder`` does; `nil` when it is a valid `"status":"ok"` body.
  private func finishEnvelope(arrayEnd: Int) -> NewsNetworkError? {
    var envelopeBytes = envelopePrefix
    envelopeBytes.append(contentsOf: Array("[]".utf8))
    // The rest of the file: normally `}` and a newline.
    refill(keepingFrom: arrayEnd)
    while !atEnd, readError == 0 { refill(keepingFrom: 0) }
    if let error = endedEarly() { return error }
    envelopeBytes.append(contentsOf: window[..<filled])
    let envelope: Envelope
    do {
      envelope = try JSONDecoder().decode(Envelope.self, from: envelopeBytes)
    } catch {
      return .invalidResponse(NewsAPIDecoder.problem(of: envelopeBytes, error, size: size))
    }
    if envelope.status == "error" {
      return .api(
        NewsAPIError(
          code: .init(rawValue: envelope.code ?? "unknown"), message: envelope.message ?? "", httpStatus: nil))
    }
    guard envelope.status == "ok" else {
      let shown = envelope.status.map { "\"\($0)\"" } ?? "missing"
      return .invalidResponse(BodyProblem(.wrongShape, "\"status\" is \(shown), expected \"ok\" or \"error\""))
    }
    condition.withLock { total = envelope.totalResults }
    return nil
  }

  private static func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// The error for `path` that could not be opened or read, `errno` in the words every file read uses
  /// (``LocalFile/reason(errno:)``: no such file, is a directory, permission denied, …).
  private static func unreadable(_ path: String, errno code: Int32) -> NewsNetworkError {
    .unreadableFile(path: path, reason: LocalFile.reason(errno: code))
  }
}
