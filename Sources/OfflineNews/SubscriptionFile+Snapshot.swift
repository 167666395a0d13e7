import Foundation
import OfflineNewsModel
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One version of a file as `stat(2)` tells it without reading it: the file (device and inode: a file replaced by
/// `rename(2)`, as every edit of ``SubscriptionFile`` and most editors replace it, is another file), its size, and
/// its modification and status-change times to the nanosecond (the status-change time moves with any write, and
/// also when the modification time is set back, `touch -d`, which no program can set).
struct FileVersion: Equatable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  /// Nanoseconds since 1970.
  var modified: Int64
  /// Nanoseconds since 1970.
  var changed: Int64

  /// The latest of ``modified`` and ``changed``.
  var latestChange: Int64 { max(modified, changed) }

  /// What `stat(2)` says of a path.
  enum Status: Equatable, Sendable {
    /// No such file (`ENOENT`, `ENOTDIR`): an empty list.
    case missing
    /// A file of this version.
    case version(FileVersion)
    /// `stat` failed otherwise: reading it says why.
    case unknown
  }

  /// The status of the file at `path` now.
  static func status(of path: String) -> Status {
    var info = stat()
    guard stat(path, &info) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unknown }
    #if canImport(Darwin)
      let modified = info.st_mtimespec
      let changed = info.st_ctimespec
    #else
      let modified = info.st_mtim
      let changed = info.st_ctim
    #endif
    return .version(
      FileVersion(
        device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
        modified: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec),
        changed: Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec)))
  }

  /// The wall clock in nanoseconds since 1970, the clock the file system stamps files with.
  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}

/// The bytes of a ``SubscriptionFile`` and what was made of them, read again only when the file may have changed:
/// `news serve` asks for the sources and kept folders at every request, and a `news add` in another shell must show
/// at the next one.
///
/// A file whose version (``FileVersion``) is the one its bytes were read at is the same file, unless it changed
/// within the file system's timestamp granularity of that read: two writes in place of the same size in one tick
/// leave one version. So a version that changed less than ``settleNanoseconds`` before the last read that confirmed
/// the bytes is not trusted: the file is read again and compared byte for byte (what was made of equal bytes is
/// kept), until the bytes have been confirmed by a read started that long after the file's last change.
final class SubscriptionFileCache: Sendable {
  /// What was made of one text of the file; filled as each is first asked for.
  struct Products: Sendable {
    var entries: Result<SubscriptionFile.Entries, SubscriptionFileError>?
    var keptFolders: Result<[[String]], SubscriptionFileError>?
    /// Only when made without error: a Parse source's mapping is loaded by the app's loader, which may fail for a
    /// while (a mapping file being written), and is then asked again.
    var sources: [NewsSource]?
  }

  /// The bytes of one text of the file, and what was made of them.
  final class Snapshot: Sendable {
    /// The file's bytes.
    let bytes: Data
    /// What was made of them.
    let products = Mutex(Products())

    init(bytes: Data) { self.bytes = bytes }

    /// The product `read` takes from ``products``, made by `make` (outside the lock) the first time.
    func product<T>(
      _ read: (Products) -> T?, make: () throws(SubscriptionFileError) -> T, keep: (inout Products, T) -> Void
    ) throws(SubscriptionFileError) -> T {
      if let made = products.withLock({ read($0) }) { return made }
      let made = try make()
      products.withLock { keep(&$0, made) }
      return made
    }
  }

  private struct Cached {
    var version: FileVersion
    /// When a read that gave ``snapshot``'s bytes started (``FileVersion/now()``).
    var confirmedAt: Int64
    var snapshot: Snapshot
  }

  /// How long after a file's last change its version is trusted to tell a change (2 s: ext4 and tmpfs stamp to the
  /// nanosecond or the clock tick, NTFS to 100 ns; FAT's 2 s modification times are the coarsest in use).
  static let settleNanoseconds: Int64 = 2_000_000_000

  private let cached = Mutex<Cached?>(nil)
  /// `stat(2)` (tests give their own).
  private let status: @Sendable (String) -> FileVersion.Status
  /// The wall clock in nanoseconds (tests give their own).
  private let now: @Sendable () -> Int64
  /// Reads the file (``SubscriptionFile/contents(path:)``; tests give their own).
  private let read: @Sendable (String) throws(SubscriptionFileError) -> Data

  init(
    status: @escaping @Sendable (String) -> FileVersion.Status = FileVersion.status(of:),
    now: @escaping @Sendable () -> Int64 = FileVersion.now,
    read: @escaping @Sendable (String) throws(SubscriptionFileError) -> Data = SubscriptionFile.contents(path:)
  ) {
    self.status = status
    self.now = now
    self.read = read
  }

  /// The file's text now, with what was made of the same text before; `nil` when there is no file.
  ///
  /// - Throws: ``SubscriptionFileError`` (``SubscriptionFileError/Kind/unreadable``) from reading it.
  func snapshot(path: String) throws(SubscriptionFileError) -> Snapshot? {
    let started = now()
    let version: FileVersion
    switch status(path) {
    case .missing: return nil
    case .unknown: return Snapshot(bytes: try read(path))
    case .version(let current): version = current
    }
    let last = cached.withLock { $0 }
    if let last, last.version == version, version.latestChange < last.confirmedAt - Self.settleNanoseconds {
      return last.snapshot
    }
    let bytes = try read(path)
    // Equal bytes (a file saved unchanged, touched, or read again while its version was too recent to trust) keep
    // what was made of them.
    let snapshot = last.map(\.snapshot).flatMap { $0.bytes == bytes ? $0 : nil } ?? Snapshot(bytes: bytes)
    cached.withLock { $0 = Cached(version: version, confirmedAt: started, snapshot: snapshot) }
    return snapshot
  }
}
