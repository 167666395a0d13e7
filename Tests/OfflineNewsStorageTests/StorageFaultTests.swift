import Foundation
import OfflineNewsModel
import TestSupport
import Testing

@testable import OfflineNewsStorage

/// Storage faults (issue 7): a full disk, a lock held past the busy timeout, a damaged page, a read-only folder or
/// mount. Each must give a clear error naming the file, lose nothing, and leave the previous cache readable where
/// SQLite allows. Tests that need root (tmpfs) or the `sqlite3` tool skip with a visible notice without them.
@Suite("Storage faults: disk full, lock timeout, damaged pages, read-only media")
struct StorageFaultTests {
  /// `count` articles of about 6 KB each (long text, so a save needs many pages).
  static func bulkyArticles(_ count: Int, prefix: String) -> [Article] {
    (0..<count).map { index in
      makeArticle(
        "\(prefix)-\(index)", title: "\(prefix) \(index)", publishedAt: t0 + Int64(index) * 1000,
        summary: String(repeating: "s", count: 2000), content: String(repeating: "c\(index) ", count: 1000))
    }
  }

  /// What a storage context holds: every article's url and title, newest first.
  static func snapshot(_ storage: StorageContext) async throws -> [String] {
    try await storage.articles(limit: nil).map { "\($0.url.absoluteString) \($0.title)" }
  }

  // MARK: Disk full

  @Test("disk full (SQLITE_FULL from a page limit on the writer): .diskFull naming the file, nothing of it kept")
  func diskFullPageLimit() async throws {
    let db = TestDatabase()
    let storage = try db.open()
    try await storage.saveArticles(Self.bulkyArticles(10, prefix: "old"), forQuery: "q", fetchedAt: .now())
    let before = try await Self.snapshot(storage)
    let pages = try #require(try await storage.int("PRAGMA page_count"))
    // max_page_count is per connection: set on the writer, it caps exactly the saves of this context.
    try await storage.write { db in _ = try db.scalarInt("PRAGMA max_page_count = \(pages + 4)") }

    let error = await #expect(throws: StorageError.self) {
      try await storage.saveArticles(Self.bulkyArticles(200, prefix: "new"), forQuery: "q", fetchedAt: .now())
    }
    #expect(error?.kind == .diskFull)
    #expect(error?.underlying?.code == SQLiteError.full)
    #expect(error?.description.contains(db.path) == true)
    #expect(error?.description.contains("disk is full") == true)
    #expect(try await Self.snapshot(storage) == before)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
    #expect(try await storage.int("SELECT count(*) FROM query_result WHERE query = 'q'") == 10)
    #expect(try writeLockIsFree(db.path))

    // Space again: the next save succeeds.
    try await storage.write { db in _ = try db.scalarInt("PRAGMA max_page_count = 1073741823") }
    let saved = try await storage.saveArticles(
      Self.bulkyArticles(200, prefix: "new"), forQuery: "q", fetchedAt: .now())
    #expect(saved.saved == 200)
    #expect(try await storage.articleCount() == 210)
  }

  @Test(
    "disk full on a size-capped tmpfs: .diskFull, the old rows intact, the next save succeeds with space",
    .enabled(if: FaultCapabilities.canMountTmpfs, "needs root and permission to mount a tmpfs"))
  func diskFullTmpfs() async throws {
    let mount = try ScratchMount.make("2m")
    let path = mount.path("news.sqlite")
    let storage = try StorageContext(path: path)
    try await storage.saveArticles(Self.bulkyArticles(10, prefix: "old"), forQuery: "q", fetchedAt: .now())
    let before = try await Self.snapshot(storage)

    let error = await #expect(throws: StorageError.self) {
      try await storage.saveArticles(Self.bulkyArticles(300, prefix: "new"), forQuery: "q", fetchedAt: .now())
    }
    #expect(error?.kind == .diskFull, "\(String(describing: error))")
    #expect(error?.description.contains(path) == true)
    #expect(try await Self.snapshot(storage) == before)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")

    #expect(mount.remount("size=16m"))
    let saved = try await storage.saveArticles(
      Self.bulkyArticles(300, prefix: "new"), forQuery: "q", fetchedAt: .now())
    #expect(saved.saved == 300)
    #expect(try await storage.articleCount() == 310)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
  }

  // Was a bug (StorageContext.init): on a file system with no byte left, opening failed with "storage failure
  // (SQLite 10: disk I/O error)" (the -shm file cannot grow), so the cache could not even be read. Now the error is
  // classified by its errno (ENOSPC: .diskFull), and the database opens read-only (immutable) instead.
  @Test(
    "regression: on a completely full disk the cache is still readable, and writes fail with .diskFull",
    .enabled(if: FaultCapabilities.canMountTmpfs, "needs root and permission to mount a tmpfs"))
  func fullDiskStillReadable() async throws {
    let mount = try ScratchMount.make("2m")
    let path = mount.path("news.sqlite")
    do {
      let storage = try StorageContext(path: path)
      try await storage.saveArticles(Self.bulkyArticles(5, prefix: "old"), forQuery: "q", fetchedAt: .now())
    }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(mount.fill() > 0)

    let storage = try StorageContext(path: path)
    #expect(storage.readOnlyCause?.kind == .diskFull)
    #expect(try await storage.articleCount() == 5)
    #expect(try await storage.articles(limit: nil).map(\.title) == (0..<5).reversed().map { "old \($0)" })
    let error = await #expect(throws: StorageError.self) {
      try await storage.saveArticles([makeArticle("new")], forQuery: "q", fetchedAt: .now())
    }
    #expect(error?.kind == .diskFull)
    #expect(error?.description.contains(path) == true)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)

    mount.unfill()
    let writable = try StorageContext(path: path)
    #expect(writable.readOnlyCause == nil)
    #expect(try await writable.saveArticles([makeArticle("new")], forQuery: "q", fetchedAt: .now()).saved == 1)
    #expect(try await writable.articleCount() == 6)
    #expect(try await writable.text("PRAGMA integrity_check") == "ok")
  }

  // MARK: Lock held past the busy timeout

  @Test(
    "a write lock held by another process (sqlite3) past the busy timeout: .busy, nothing lost, reads work",
    .enabled(if: FaultCapabilities.hasSQLiteTool, "needs the sqlite3 command line tool"))
  func lockTimeoutAnotherProcess() async throws {
    try await lockTimeout(holder: "another process (sqlite3)")
  }

  @Test("a write lock held by another connection past the busy timeout: .busy, nothing lost, reads work")
  func lockTimeoutAnotherConnection() async throws {
    try await lockTimeout(holder: "another connection")
  }

  private func lockTimeout(holder kind: String) async throws {
    let db = TestDatabase()
    let storage = try StorageContext(path: db.path, busyTimeout: 0.5)
    try await storage.saveArticles([makeArticle("a"), makeArticle("b")], forQuery: "q", fetchedAt: .now())
    let before = try await Self.snapshot(storage)

    var release: () -> Void = {}
    if kind.hasPrefix("another process") {
      let holder = try SQLiteLockHolder.start(db.path)
      release = { holder.release() }
    } else {
      let other = try Connection(path: db.path)
      try other.execute(sql: "BEGIN IMMEDIATE")
      release = { try? other.execute(sql: "ROLLBACK") }
    }
    let started = Date()
    let error = await #expect(throws: StorageError.self) {
      try await storage.saveArticles([makeArticle("c")], forQuery: "q", fetchedAt: .now())
    }
    let waited = Date().timeIntervalSince(started)
    #expect(error?.kind == .busy)
    #expect(error?.description.contains("locked") == true)
    #expect(error?.description.contains(db.path) == true)
    // A loose ceiling: the busy timeout is 0.5 s; this only shows the save does not wait for the lock forever.
    #expect(waited < 20, "waited \(waited) s")
    // WAL: readers are not blocked by another process's write lock.
    #expect(try await Self.snapshot(storage) == before)
    release()

    #expect(try await storage.saveArticles([makeArticle("c")], forQuery: "q", fetchedAt: .now()).saved == 1)
    #expect(try await storage.articleCount() == 3)
    #expect(try await storage.text("PRAGMA integrity_check") == "ok")
  }

  // MARK: Damaged pages

  /// A populated database, closed (so everything is in the main file), and its page size.
  static func populated(_ db: TestDatabase) async throws -> Int {
    do {
      let storage = try db.open()
      try await storage.saveArticles(bulkyArticles(40, prefix: "kept"), forQuery: "q", fetchedAt: .now())
    }
    let connection = try Connection(path: db.path, readOnly: true)
    return Int(try #require(try connection.scalarInt("PRAGMA page_size")))
  }

  /// Overwrites `count` bytes at `offset` of the file with `byte`.
  static func damage(_ path: String, at offset: Int, count: Int = 16, with byte: UInt8 = 0xFF) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(repeating: byte, count: count))
  }

  @Test("a damaged b-tree page of the article table: reads and writes fail as corrupt, naming the file, untouched")
  func damagedArticleRoot() async throws {
    let db = TestDatabase()
    let pageSize = try await Self.populated(db)
    let root = try #require(
      try Connection(path: db.path, readOnly: true).scalarInt(
        "SELECT rootpage FROM sqlite_master WHERE name = 'article'"))
    // The page header (its type byte first) of the article table's root page.
    try Self.damage(db.path, at: (Int(root) - 1) * pageSize)
    let bytes = try db.bytes()

    // Opening reads only the schema (page 1), which is intact.
    let storage = try db.open()
    let readError = await #expect(throws: StorageError.self) { try await storage.articles(limit: nil) }
    #expect(readError?.kind == .notADatabase)
    #expect(readError?.underlying?.code == SQLiteError.corrupt)
    #expect(readError?.description.contains(db.path) == true)
    #expect(readError?.description.contains("damaged") == true)
    let writeError = await #expect(throws: StorageError.self) {
      try await storage.saveArticles([makeArticle("new")], forQuery: "q", fetchedAt: .now())
    }
    #expect(writeError?.kind == .notADatabase)
    // What is still readable: the schema version and the tables on other pages (the fetch log).
    #expect(try await storage.storedSchemaVersion() == StorageContext.schemaVersion)
    #expect(try await storage.int("SELECT count(*) FROM query_fetch") == 1)
    #expect(try await storage.text("PRAGMA integrity_check") != "ok")
    #expect(try db.bytes() == bytes)
  }

  @Test("damage on any page of a populated file: never a crash, only errors naming the file; never replaced")
  func damagedPages() async throws {
    let source = TestDatabase()
    let pageSize = try await Self.populated(source)
    let original = try source.bytes()
    let pageCount = original.count / pageSize
    var outcomes: [String: Int] = [:]
    // Every page from 2 on, twice: its header, and the middle of its content.
    for page in 2...pageCount {
      for offset in [0, pageSize / 2] {
        let db = TestDatabase()
        try original.write(to: URL(fileURLWithPath: db.path))
        try Self.damage(db.path, at: (page - 1) * pageSize + offset, count: 32, with: UInt8(truncatingIfNeeded: page))
        let inode = try FileManager.default.attributesOfItem(atPath: db.path)[.systemFileNumber] as? Int
        var outcome: [String] = []
        do {
          let storage = try db.open()
          for step in ["list", "search", "save"] {
            do {
              switch step {
              case "list": _ = try await storage.articles(limit: nil)
              case "search": _ = try await storage.search("kept", limit: 5)
              default: _ = try await storage.saveArticles([makeArticle("new")], forQuery: "q", fetchedAt: .now())
              }
              outcome.append("\(step) ok")
            } catch {
              #expect(error.description.contains(db.path), "page \(page)+\(offset): \(error)")
              outcome.append("\(step) \(error.kind)")
            }
          }
        } catch let error as StorageError {
          #expect(error.description.contains(db.path), "page \(page)+\(offset): \(error)")
          outcome.append("open \(error.kind)")
        }
        outcomes[outcome.joined(separator: ", "), default: 0] += 1
        // The file is the same file (never deleted and recreated).
        #expect(try FileManager.default.attributesOfItem(atPath: db.path)[.systemFileNumber] as? Int == inode)
      }
    }
    for (outcome, count) in outcomes.sorted(by: { $0.value > $1.value }) { print("damaged page: \(count)× \(outcome)") }
    #expect(outcomes.values.reduce(0, +) == 2 * (pageCount - 1))
  }

  // MARK: Read-only media

  /// How a folder is made read-only: a tmpfs remounted `ro` (root, where mounting is allowed), the folder made
  /// immutable with `chattr +i` (root), or its permission bits (other users).
  enum ReadOnlyFolder {
    case mount, chattr, chmod
  }

  // Was a bug (StorageContext.init): a WAL database on a read-only mount or in a read-only folder could not be read
  // at all ("cannot open or create the file (missing folder or no permission)"): SQLite needs to create -shm beside
  // it. Now it opens read-only and immutable; writes fail with .readOnly.
  @Test(
    "regression: a database on a read-only mount is readable; writes fail .readOnly",
    .enabled(if: FaultCapabilities.canMountTmpfs, "needs root and permission to mount a tmpfs"))
  func readOnlyMount() async throws { try await readOnlyMedium(.mount) }

  @Test(
    "regression: a database in a folder made immutable (chattr +i) is readable; writes fail .readOnly",
    .enabled(if: FaultCapabilities.canMakeImmutable, "needs root and chattr +i"))
  func readOnlyImmutableFolder() async throws { try await readOnlyMedium(.chattr) }

  @Test(
    "regression: a database in a folder without write permission (chmod 555) is readable; writes fail .readOnly",
    .enabled(if: !FaultCapabilities.isRoot, "root ignores permission bits"))
  func readOnlyPermissions() async throws { try await readOnlyMedium(.chmod) }

  private func readOnlyMedium(_ how: ReadOnlyFolder) async throws {
    let temporary = TemporaryDirectory("offlinenews-ro")
    let mount = how == .mount ? try ScratchMount.make("4m") : nil
    let folder = mount?.directory.url.path ?? temporary.url.path
    let path = folder + "/news.sqlite"
    do {
      let storage = try StorageContext(path: path)
      try await storage.saveArticles([makeArticle("a"), makeArticle("b")], forQuery: "q", fetchedAt: .now())
    }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let protected: Bool
    switch how {
    case .mount: protected = mount?.remount("ro") ?? false
    case .chattr: protected = FaultCapabilities.setImmutable(folder, true)
    case .chmod: protected = chmod(folder, 0o555) == 0
    }
    defer {
      switch how {
      case .mount: mount?.remount("rw")
      case .chattr: FaultCapabilities.setImmutable(folder, false)
      case .chmod: chmod(folder, 0o755)
      }
    }
    try #require(protected, "could not make \(folder) read-only (\(how))")

    // Through a symbolic link from a writable folder, the same.
    let linkFolder = TemporaryDirectory("offlinenews-link")
    let link = linkFolder.path("link.sqlite")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
    let linked = try StorageContext(path: link)
    #expect(linked.readOnlyCause?.kind == .readOnly, "\(String(describing: linked.readOnlyCause))")
    #expect(try await linked.articles(limit: nil).map(\.url) == [articleURL("a"), articleURL("b")])
    await linked.close()

    let storage = try StorageContext(path: path)
    #expect(storage.readOnlyCause?.kind == .readOnly)
    #expect(try await storage.articles(limit: nil).map(\.url) == [articleURL("a"), articleURL("b")])
    #expect(try await storage.search("Title", limit: 5).count == 2)
    let error = await #expect(throws: StorageError.self) {
      try await storage.saveArticles([makeArticle("c")], forQuery: "q", fetchedAt: .now())
    }
    #expect(error?.kind == .readOnly)
    #expect(error?.description.contains(path) == true)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
  }

  @Test(
    "read-only folder, committed rows only in -wal (no -shm) or a hot -journal, also through a link: refused",
    .enabled(if: FaultCapabilities.canMakeImmutable, "needs root and chattr +i"), arguments: ["-wal", "-journal"],
    [false, true])
  func readOnlyWithPendingJournal(_ suffix: String, linked: Bool) async throws {
    let db = TestDatabase()
    let copy = TemporaryDirectory("offlinenews-walcopy")
    let path = copy.path("news.sqlite")
    if suffix == "-wal" {
      let storage = try db.open()
      try await storage.write { db in _ = try db.scalarInt("PRAGMA wal_autocheckpoint = 0") }
      try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: .now())
      // A copy of the main file and its -wal, taken while the context is open: the article is only in the -wal.
      for part in ["", "-wal"] { try FileManager.default.copyItem(atPath: db.path + part, toPath: path + part) }
    } else {
      do {
        let storage = try db.open()
        try await storage.saveArticles([makeArticle("a")], forQuery: "q", fetchedAt: .now())
      }
      // A complete database (closed, so all in the main file) with a journal beside it, as a crash in
      // rollback-journal mode leaves one; without the journal it would open read-only (readOnlyMedium).
      try FileManager.default.copyItem(atPath: db.path, toPath: path)
      try Data(repeating: 0xD9, count: 512).write(to: URL(fileURLWithPath: path + "-journal"))
    }
    try #require(FaultCapabilities.setImmutable(copy.url.path, true), "chattr +i \(copy.url.path) failed")
    defer { FaultCapabilities.setImmutable(copy.url.path, false) }
    // Through a link in a writable folder: the -wal or -journal beside the link's target is the one SQLite reads
    // (the read-only fallback once looked beside the link, found none, and would have read without the -wal).
    let opened = linked ? db.directory.path("link.sqlite") : path
    if linked { try FileManager.default.createSymbolicLink(atPath: opened, withDestinationPath: path) }
    // -wal: SQLite cannot create -shm ("cannot open"); -journal: it cannot delete the journal (EPERM, "read-only";
    // this said "storage failure (SQLite 10: disk I/O error)" before I/O errors were classified by errno).
    let error = #expect(throws: StorageError.self) { _ = try StorageContext(path: opened) }
    #expect(error?.kind == (suffix == "-wal" ? .cannotOpen : .readOnly), "\(String(describing: error))")
    #expect(error?.description.contains(opened) == true)
  }
}
