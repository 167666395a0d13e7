import Foundation
import OfflineNewsModel
import Synchronization
import TestSupport
import Testing

@testable import OfflineNews

#if canImport(Glibc)
  import Glibc
#endif

/// `news serve` asks its configuration file for the sources and kept folders at every request: the file is read and
/// parsed again only when it changed (`SubscriptionFileCache`), and a change made by another program (`news add`,
/// `news remove`, a rename, an edit by hand) is seen by the next call — also an edit in place of the same size within
/// one tick of the file system's clock, which leaves size, times and inode as they were.
@Suite("SubscriptionFile: the file read again only when it changed, every change seen")
struct SubscriptionFileCacheTests {
  static func feeds(_ names: [String]) -> String {
    let members = names.map { #""\#($0)": {"feed": "https://\#($0.lowercased()).example.org/feed.xml"}"# }
    return #"{"sources": {"# + members.joined(separator: ", ") + "}}\n"
  }

  /// Writes `text` into the file at `path` in place (same inode: no rename), as `echo > news.json` does.
  static func overwriteInPlace(_ path: String, _ text: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  @Test("another program's subscribe, rename, move, remove and kept folder: each seen by the next call, at once")
  func otherProgramsEdits() async throws {
    let folder = TemporaryDirectory("subscription-cache")
    let path = folder.path("news.json")
    try Self.feeds(["Alpha"]).write(toFile: path, atomically: true, encoding: .utf8)
    let served = SubscriptionFile(path: path, environment: [:])
    let other = SubscriptionFile(path: path, environment: [:])
    #expect(try await served.sources().map(\.name) == ["Alpha"])
    #expect(try await served.keptFolders() == [])

    try await other.subscribe([NewsSource(name: "Bravo", url: try #require(URL(string: "https://b.example.org/f")))])
    #expect(try await served.sources().map(\.name) == ["Alpha", "Bravo"])
    try await other.rename("Bravo", to: "Charlie")
    #expect(try await served.sources().map(\.name) == ["Alpha", "Charlie"])
    #expect(try await served.subscribed().map(\.name) == ["Alpha", "Charlie"])
    try await other.move("Charlie", to: ["Tech", "Swift"])
    #expect(try await served.sources().last?.folder == ["Tech", "Swift"])
    try await other.setFolderKept(["Empty"], kept: true)
    #expect(try await served.keptFolders() == [["Empty"]])
    try await other.unsubscribe("Charlie")
    #expect(try await served.sources().map(\.name) == ["Alpha"])
    // Removed, then made again: an empty list, then the new one.
    try FileManager.default.removeItem(atPath: path)
    #expect(try await served.sources().isEmpty)
    #expect(try await served.keptFolders().isEmpty)
    try Self.feeds(["Delta"]).write(toFile: path, atomically: true, encoding: .utf8)
    #expect(try await served.sources().map(\.name) == ["Delta"])
  }

  @Test("edits in place of the same size, one at once after another: each seen; a broken file throws, then heals")
  func sameSizeInPlace() async throws {
    let folder = TemporaryDirectory("subscription-cache")
    let path = folder.path("news.json")
    try Self.create(path, Self.feeds(["Alpha"]))
    let list = SubscriptionFile(path: path, environment: [:])
    #expect(try await list.sources().map(\.name) == ["Alpha"])
    // The same length, the same inode, within microseconds: often the same times on ext4 (its clock tick).
    for name in ["Bravo", "Gamma", "Delta", "Alpha"] {
      try Self.overwriteInPlace(path, Self.feeds([name]))
      #expect(try await list.sources().map(\.name) == [name])
    }
    try Self.overwriteInPlace(path, #"{"sources": {"Alpha": {"feed": 3}}}"#)
    await #expect(throws: SubscriptionChangeError.self) { try await list.sources() }
    try Self.overwriteInPlace(path, Self.feeds(["Omega"]))
    #expect(try await list.sources().map(\.name) == ["Omega"])
  }

  /// Creates the file.
  static func create(_ path: String, _ text: String) throws {
    #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
  }

  @Test("an edit in place that sets the modification time back (touch -d) is seen: the status-change time moved")
  func modificationTimeSetBack() async throws {
    let folder = TemporaryDirectory("subscription-cache")
    let path = folder.path("news.json")
    try Self.create(path, Self.feeds(["Alpha"]))
    // Old enough that the version is trusted without reading the file again.
    var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    let reads = Mutex(0)
    let cache = SubscriptionFileCache(read: { path throws(SubscriptionFileError) in
      reads.withLock { $0 += 1 }
      return try SubscriptionFile.contents(path: path)
    })
    let first = try #require(try cache.snapshot(path: path))
    #expect(String(decoding: first.bytes, as: UTF8.self) == Self.feeds(["Alpha"]))
    try Self.overwriteInPlace(path, Self.feeds(["Bravo"]))
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    let second = try #require(try cache.snapshot(path: path))
    #expect(String(decoding: second.bytes, as: UTF8.self) == Self.feeds(["Bravo"]))
    #expect(reads.withLock { $0 } == 2)
  }

  /// A file whose `stat` and clock the test sets.
  final class FakeFile: Sendable {
    struct State {
      var version = FileVersion(
        device: 1, inode: 2, size: 10, modified: 10 * FakeFile.second, changed: 10 * FakeFile.second)
      var exists = true
      var bytes = Data("A".utf8)
      var now: Int64 = 0
      var reads = 0
    }
    static let second: Int64 = 1_000_000_000
    let state = Mutex(State())

    var cache: SubscriptionFileCache {
      SubscriptionFileCache(
        status: { _ in self.state.withLock { $0.exists ? .version($0.version) : .missing } },
        now: { self.state.withLock { $0.now } },
        read: { _ throws(SubscriptionFileError) in
          self.state.withLock {
            $0.reads += 1
            return $0.bytes
          }
        })
    }

    func set(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }
    var reads: Int { state.withLock { $0.reads } }
  }

  @Test("a version is trusted only once its bytes were confirmed 2 s after its last change; until then, compared")
  func settling() throws {
    let file = FakeFile()
    let cache = file.cache
    let second = FakeFile.second
    file.set { $0.now = 10 * second + second / 2 }
    let first = try #require(try cache.snapshot(path: "news.json"))
    #expect(file.reads == 1)
    // Rewritten within the same tick: the same version, other bytes — read again, and seen.
    file.set {
      $0.bytes = Data("B".utf8)
      $0.now = 11 * second
    }
    let rewritten = try #require(try cache.snapshot(path: "news.json"))
    #expect(file.reads == 2)
    #expect(rewritten.bytes == Data("B".utf8))
    #expect(rewritten !== first)
    // Still too recent (confirmed at 11 s, changed at 10 s): read, equal bytes keep what was made of them.
    file.set { $0.now = 14 * second }
    let third = try #require(try cache.snapshot(path: "news.json"))
    #expect(file.reads == 3)
    #expect(third === rewritten)
    // Confirmed at 14 s, 4 s after the change: trusted, not read.
    file.set { $0.now = 15 * second }
    #expect(try cache.snapshot(path: "news.json") === rewritten)
    #expect(file.reads == 3)
    // A new version is read at once.
    file.set {
      $0.version.changed = 15 * second
      $0.bytes = Data("C".utf8)
      $0.now = 15 * second + 1
    }
    #expect(try cache.snapshot(path: "news.json")?.bytes == Data("C".utf8))
    #expect(file.reads == 4)
    // No file: nothing read.
    file.set { $0.exists = false }
    #expect(try cache.snapshot(path: "news.json") == nil)
    #expect(file.reads == 4)
  }

  @Test("a copy shares the cache; changing its environment or mappings does not reuse what the old ones made")
  func environmentChange() async throws {
    let folder = TemporaryDirectory("subscription-cache")
    let path = folder.path("news.json")
    try #"{"sources": {"Local": {"file": "~/a.json"}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
    let list = SubscriptionFile(path: path, environment: ["HOME": "/home/one"])
    #expect(try await list.sources().first?.url.path == "/home/one/a.json")
    var other = list
    other.environment = ["HOME": "/home/two"]
    #expect(try await other.sources().first?.url.path == "/home/two/a.json")
    #expect(try await list.sources().first?.url.path == "/home/one/a.json")
  }
}
