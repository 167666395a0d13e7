#if canImport(Glibc)
  import Glibc
#endif

/// Pseudo-terminals (`openpty(3)`), for the programs that run `news` as a user's terminal would: the terminal
/// tests (``TestSupport/PseudoTerminal``) and `news-bench --read`'s terminal session. Nothing of the library or of
/// `news` uses it.
public enum PTY {
  /// Why a pty could not be opened.
  public struct Failure: Error, CustomStringConvertible {
    /// What failed, with the system's reason: `openpty: out of pty devices`.
    public var description: String
  }

  /// Opens a pty whose window is `rows` lines by `columns` columns (set before any program starts on it, so its
  /// `ioctl(TIOCGWINSZ)` sees the size), with both descriptors close-on-exec: a child gets the slave only through
  /// its spawn's file actions.
  ///
  /// - Returns: the master (this process reads and writes it) and the slave (the child's terminal).
  /// - Throws: ``Failure`` when `openpty` is missing or fails.
  public static func open(columns: Int, rows: Int) throws(Failure) -> (master: Int32, slave: Int32) {
    guard let openpty else {
      throw Failure(description: "openpty is not available (glibc 2.34+ has it in libc, older ones in libutil)")
    }
    var (master, slave): (Int32, Int32) = (-1, -1)
    var size = winsize(
      ws_row: UInt16(clamping: rows), ws_col: UInt16(clamping: columns), ws_xpixel: 0, ws_ypixel: 0)
    guard openpty(&master, &slave, nil, nil, &size) == 0 else {
      throw Failure(description: "openpty: \(String(cString: strerror(errno)))")
    }
    _ = fcntl(master, F_SETFD, FD_CLOEXEC)
    _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
    return (master, slave)
  }

  /// `openpty(3)`, looked up at run time: `<pty.h>` is not part of Swift's Glibc module.
  private typealias OpenPTY =
    @convention(c) (
      UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<CChar>?,
      UnsafePointer<termios>?, UnsafePointer<winsize>?
    ) -> Int32

  private static let openpty: OpenPTY? = {
    for library in [nil, "libutil.so.1"] as [String?] {
      guard let handle = dlopen(library, RTLD_NOW), let symbol = dlsym(handle, "openpty") else { continue }
      return unsafeBitCast(symbol, to: OpenPTY.self)
    }
    return nil
  }()
}
