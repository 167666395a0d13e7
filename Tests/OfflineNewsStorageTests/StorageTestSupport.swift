import Foundation
import OfflineNewsModel
import OfflineNewsStorage
import Synchronization
import TestSupport

/// A fresh on-disk database path in its own temporary directory (removed when the value goes away).
struct TestDatabase {
  let directory = TemporaryDirectory("offlinenews-storage")
  var path: String { directory.path("news.sqlite") }

  func open() throws -> StorageContext { try StorageContext(path: path) }

  /// Whether `path` + `suffix` (e.g. `-wal`) exists.
  func exists(_ suffix: String = "") -> Bool { FileManager.default.fileExists(atPath: path + suffix) }

  func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
}

/// 2023-11-14T22:13:20Z: a whole second, so `Timestamp(t).date` is exact.
let t0: Int64 = 1_700_000_000_000

func articleURL(_ slug: String) -> URL {
  guard let url = URL(string: "https://example.com/news/\(slug)") else { preconditionFailure("bad slug \(slug)") }
  return url
}

/// An article at `https://example.com/news/<slug>` published `publishedAt` ms after 1970.
func makeArticle(
  _ slug: String, title: String? = nil, publishedAt: Int64 = t0, author: String? = nil, summary: String? = nil,
  content: String? = nil, sourceName: String? = nil
) -> Article {
  Article(
    url: articleURL(slug), title: title ?? "Title \(slug)", author: author, summary: summary,
    publishedAt: Timestamp(millisecondsSince1970: publishedAt).date, content: content, sourceName: sourceName)
}

/// The slugs (last path components) of articles, for readable expectations.
func slugs(_ articles: [Article]) -> [String] { articles.map(\.url.lastPathComponent) }

extension StorageContext {
  /// One integer read with raw SQL on the context's own connection.
  func int(_ sql: String) async throws -> Int64? { try await read { try $0.scalarInt(sql) } }
  /// One text value read with raw SQL on the context's own connection.
  func text(_ sql: String) async throws -> String? { try await read { try $0.scalarString(sql) } }
}

struct Boom: Error, Equatable {
  /// What a `Boom` thrown by the body of a raw `read`/`write` (or by a fault seam) of `storage` becomes: the
  /// ``StorageError`` `.other` with it as its cause, as every error of the context is a `StorageError`.
  static func storageError(_ storage: StorageContext) -> StorageError {
    var error = StorageError(kind: .other, path: storage.path)
    error.cause = String(describing: Boom())
    return error
  }
}

/// Whether another connection can take the write lock at once (`BEGIN IMMEDIATE` with no busy wait): false when a
/// transaction was left open on the storage context's writer.
func writeLockIsFree(_ path: String) throws -> Bool {
  let other = try Connection(path: path, busyTimeout: 0)
  do {
    try other.execute(sql: "BEGIN IMMEDIATE")
    try other.execute(sql: "ROLLBACK")
    return true
  } catch  where error.code == SQLiteError.busy {
    return false
  }
}

/// Says yes `count` times, then no: a fault that strikes the first `count` times.
final class Countdown: Sendable {
  private let left: Mutex<Int>
  init(_ count: Int) { left = Mutex(count) }

  func take() -> Bool {
    left.withLock { left in
      defer { left -= 1 }
      return left > 0
    }
  }
}

/// A read held open on its reader's thread until the test releases it.
final class HeldRead: Sendable {
  private let release = DispatchSemaphore(value: 0)
  let task: Task<Int, any Error>

  init(_ storage: StorageContext) async {
    let release = self.release
    let (started, didStart) = AsyncStream.makeStream(of: Void.self)
    task = Task {
      try await storage.read { db in
        didStart.yield()
        release.wait()
        return Int(try db.scalarInt("SELECT count(*) FROM article") ?? -1)
      }
    }
    // Returns once the read holds its reader.
    for await _ in started { break }
  }

  /// Lets the read finish; its result.
  func finish() async throws -> Int {
    release.signal()
    return try await task.value
  }
}
