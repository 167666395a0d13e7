import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An exclusive advisory lock (`flock(2)`) on the folder of a file that is edited by reading it, changing the text
/// and renaming a new file over it: two programs editing the file at once (two `news add` in parallel) take turns,
/// so that neither's change is lost. The folder is locked rather than the file because the rename replaces the
/// file's inode; the lock ends with ``release()`` or the process.
package final class FolderLock {
  private var descriptor: Int32

  /// Waits for and takes the lock on the folder of `path` (symbolic links resolved), creating the folder when it
  /// is missing.
  ///
  /// - Throws: ``SubscriptionFileError`` (``SubscriptionFileError/Kind/unwritable``) when the folder cannot be
  ///   created or opened.
  package init(folderOf path: String) throws(SubscriptionFileError) {
    let folder = URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw SubscriptionFileError(.unwritable, path: path, "cannot create the folder \(folder) for \(path)")
    }
    descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw SubscriptionFileError(
        .unwritable, path: path, "cannot open the folder \(folder): \(String(cString: strerror(errno)))")
    }
    while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
  }

  /// Ends the lock (also done when the lock is deinitialized).
  package func release() {
    guard descriptor >= 0 else { return }
    flock(descriptor, LOCK_UN)
    close(descriptor)
    descriptor = -1
  }

  deinit { release() }
}
