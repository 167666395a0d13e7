import CNcurses
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The terminal an interactive screen draws on: ncurses (wide characters) behind a few calls — lines in, keys and
/// events out. It knows nothing of news: `news read` (NewsCLI) lays out its screens as lines of text and hands them
/// here. ncurses is loaded by ``start()`` (`dlopen`, the CNcurses shim), not linked, so that the other commands of
/// `news` do not load it at every start.
///
/// Only one exists at a time (ncurses has one screen), and every call is made from one task: ncurses is not safe
/// to call concurrently. ``stop()`` gives the terminal back as it was (cooked mode, echo, the cursor, the main
/// screen); it runs on every way out — a return, a thrown error (call it in a `defer`), SIGINT, SIGTERM and SIGHUP
/// (delivered as ``Event``s, so the loop ends and stops the terminal), and a crash (a handler restores the terminal
/// before the signal's default action).
package final class Terminal {
  /// What the event loop waits for.
  package enum Event: Sendable, Equatable {
    /// Keys are ready to be read (``readKeys()``).
    case input
    /// The window changed size (SIGWINCH): ``resize()`` then draw again.
    case resize
    /// The user or the system asked the program to end (SIGINT, SIGTERM, SIGHUP, SIGQUIT); the signal's number.
    case interrupt(Int32)
  }

  /// A key as the reader sees it.
  package enum Key: Sendable, Equatable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end, enter, backspace, escape, delete
    /// A function key with no name here (its ncurses code).
    case other(Int32)
  }

  /// How a line is drawn.
  package struct Style: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    package static let bold = Style(rawValue: 1)
    package static let reverse = Style(rawValue: 2)
    package static let dim = Style(rawValue: 4)
    package static let underline = Style(rawValue: 8)
  }

  /// One line of a screen: text already fitted to the width (display columns), and its style.
  package struct Line: Sendable, Hashable {
    package var text: String
    package var style: Style
    package init(_ text: String, style: Style = []) {
      self.text = text
      self.style = style
    }
  }

  /// Why the terminal cannot be used.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  private var started = false
  private var screen: OpaquePointer?
  private let signalPipe: (read: Int32, write: Int32)
  private let acknowledged = DispatchSemaphore(value: 0)
  private var watcher: Thread?
  private let stopping = Stopping()
  /// Colour attributes are not used; `NO_COLOR` changes nothing but is respected by construction.
  private let useStyles: Bool

  private let delivery = Delivery()

  /// Prepares a terminal; nothing is drawn until ``start()``.
  ///
  /// - Parameter styles: draw bold, reverse and dim (`false`: every line plain but the selection, shown reversed).
  package init(styles: Bool = true) throws(Failure) {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))") }
    _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
    signalPipe = (fds[0], fds[1])
    useStyles = styles
  }

  /// Where the events go once ``start()`` ran (input ready, resized, interrupted): `handler`, called in order on the
  /// thread that watches the terminal; those that came before it was given are handed to it first. It must not
  /// block (yield them into the event loop's own stream: no hop between tasks on each key, which under load can
  /// wait for a core; `news-bench --read`).
  package func deliver(to handler: @escaping @Sendable (Event) -> Void) {
    delivery.deliver(to: handler)
  }

  deinit {
    stop()
    close(signalPipe.read)
    close(signalPipe.write)
  }

  /// Whether standard input and output are a terminal (`news read` refuses to run otherwise).
  package static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

  /// Takes the terminal: a UTF-8 locale (the environment's, else `C.UTF-8`), the alternate screen, no echo, keys one
  /// at a time, no cursor; signals and input become events (``deliver(to:)``).
  package func start() throws(Failure) {
    guard !started else { return }
    var missing: UnsafePointer<CChar>?
    guard cncurses_load(&missing) == 0 else {
      let what = missing.map { String(cString: $0) } ?? "ncurses"
      throw Failure(description: "ncurses cannot be loaded (\(what) is missing; apt-get install libncursesw6)")
    }
    Self.useUTF8Locale()
    cncurses_restore_on_crash()
    cncurses_signals_to(signalPipe.write)
    // newterm rather than initscr: initscr exits the process when TERM names no known terminal.
    let term = ProcessInfo.processInfo.environment["TERM"].flatMap { $0.isEmpty ? nil : $0 } ?? "xterm"
    let output = fdopen(dup(STDOUT_FILENO), "w")
    let input = fdopen(dup(STDIN_FILENO), "r")
    guard let output, let input, let made = cn_newterm(term, output, input) else {
      cncurses_signals_to(-1)
      cncurses_default_on_crash()
      throw Failure(
        description: "the terminal type \(term) is not known: set TERM (e.g. xterm-256color), or install ncurses-term")
    }
    screen = made
    guard cn_can_address_cursor() != 0 else {
      // A terminal that cannot move the cursor (TERM=dumb, an editor's shell buffer) shows one garbled line.
      cn_endwin()
      cn_delscreen(made)
      screen = nil
      cncurses_signals_to(-1)
      cncurses_default_on_crash()
      throw Failure(
        description: "the terminal type \(term) cannot move the cursor: news read needs a full-screen terminal "
          + "(set TERM, e.g. xterm-256color)")
    }
    started = true
    _ = cn_set_escdelay(25)
    _ = cn_cbreak()
    _ = cn_noecho()
    _ = cn_nonl()
    _ = cn_keypad(cncurses_stdscr(), true)
    _ = cn_nodelay(cncurses_stdscr(), true)
    _ = cn_curs_set(0)
    startWatching()
  }

  /// Gives the terminal back as it was. Safe to call more than once.
  package func stop() {
    guard started else { return }
    started = false
    stopping.set()
    _ = cn_curs_set(1)
    _ = cn_endwin()
    if let screen { cn_delscreen(screen) }
    screen = nil
    cncurses_signals_to(-1)
    cncurses_default_on_crash()
    var byte: UInt8 = 0
    _ = write(signalPipe.write, &byte, 1)  // wakes the watcher, which sees `stopping` and ends
    acknowledged.signal()
  }

  /// Leaves the screen for a moment (an external program that may use the terminal runs in `body`) and takes it
  /// back after.
  package func suspended<T>(_ body: () throws -> T) rethrows -> T {
    guard started else { return try body() }
    _ = cn_def_prog_mode()
    _ = cn_endwin()
    defer {
      _ = cn_reset_prog_mode()
      _ = cn_refresh()
    }
    return try body()
  }

  /// The window's size in lines and columns.
  package var size: (lines: Int, columns: Int) {
    (Int(cncurses_lines()), Int(cncurses_columns()))
  }

  /// Reads the new window size (after a ``Event/resize``) and resizes the screen to it.
  package func resize() {
    guard started else { return }
    var window = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 {
      _ = cn_resizeterm(Int32(window.ws_row), Int32(window.ws_col))
    }
    _ = cn_clearok(cncurses_stdscr(), true)
  }

  /// Every key typed since the last call, without waiting; then the input watcher is told to wait for more.
  package func readKeys() -> [Key] {
    guard started else { return [] }
    var keys: [Key] = []
    var value: Int32 = 0
    while true {
      let kind = cncurses_read_key(&value)
      if kind == 0 { break }
      if kind == 2 {
        if value == KEY_RESIZE { continue }
        keys.append(Self.functionKey(value))
      } else {
        keys.append(Self.characterKey(value))
      }
    }
    acknowledged.signal()
    return keys
  }

  /// Draws `lines` from the top, each on its own row (rows past the window are not drawn, rows below the last line
  /// are cleared), and shows them.
  package func draw(_ lines: [Line]) {
    guard started else { return }
    let height = Int(cncurses_lines())
    let window = cncurses_stdscr()
    for row in 0..<height {
      _ = cn_wmove(window, Int32(row), 0)
      _ = cn_wclrtoeol(window)
      guard row < lines.count else { continue }
      let line = lines[row]
      let attributes = attributes(of: line.style)
      if attributes != 0 { _ = cn_wattr_on(window, attr_t(UInt32(bitPattern: attributes)), nil) }
      _ = cn_waddnstr(window, line.text, -1)
      if line.style.contains(.reverse) {
        // The selection's bar goes across the whole width.
        let y = cn_getcury(window)
        let x = cn_getcurx(window)
        if y == Int32(row) && x > 0 {
          let rest = Int(cncurses_columns()) - Int(x)
          if rest > 0 { _ = cn_waddnstr(window, String(repeating: " ", count: rest - (row == height - 1 ? 1 : 0)), -1) }
        }
      }
      if attributes != 0 { _ = cn_wattr_off(window, attr_t(UInt32(bitPattern: attributes)), nil) }
    }
    _ = cn_wrefresh(window)
  }

  private func attributes(of style: Style) -> Int32 {
    var value: Int32 = 0
    if style.contains(.reverse) { value |= cncurses_attr_reverse() }
    guard useStyles else { return value }
    if style.contains(.bold) { value |= cncurses_attr_bold() }
    if style.contains(.dim) { value |= cncurses_attr_dim() }
    if style.contains(.underline) { value |= cncurses_attr_underline() }
    return value
  }

  // MARK: The watcher

  /// A thread that waits (poll) for input on standard input or a byte on the signal pipe and turns them into
  /// events; after `.input` it waits until ``readKeys()`` has read the keys, so one burst of typing is one event.
  private func startWatching() {
    let pipeRead = signalPipe.read
    let delivery = self.delivery
    let acknowledged = self.acknowledged
    let stopping = self.stopping
    let thread = Thread {
      var fds = [
        pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
        pollfd(fd: pipeRead, events: Int16(POLLIN), revents: 0),
      ]
      while !stopping.isSet {
        fds[0].revents = 0
        fds[1].revents = 0
        let ready = poll(&fds, 2, -1)
        if stopping.isSet { break }
        if ready < 0 {
          if errno == EINTR { continue }
          break
        }
        if fds[1].revents & Int16(POLLIN) != 0 {
          var bytes = [UInt8](repeating: 0, count: 64)
          let count = read(pipeRead, &bytes, bytes.count)
          if stopping.isSet { break }
          for byte in bytes.prefix(max(0, count)) {
            let number = Int32(byte)
            delivery.send(number == SIGWINCH ? .resize : .interrupt(number))
          }
        }
        if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
          delivery.send(.input)
          acknowledged.wait()
          if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
            // The terminal went away: the same as a hang-up.
            delivery.send(.interrupt(SIGHUP))
            break
          }
        }
      }
    }
    thread.name = "news read input"
    thread.start()
    watcher = thread
  }

  /// Where the watcher thread sends events: the handler given to ``deliver(to:)``, and until then a queue.
  private final class Delivery: @unchecked Sendable {
    // @unchecked: `handler` and `pending` are read and written with `lock` held; the handler is called with it held,
    // so that events reach it in order.
    private let lock = NSLock()
    private var handler: (@Sendable (Event) -> Void)?
    private var pending: [Event] = []

    func deliver(to handler: @escaping @Sendable (Event) -> Void) {
      lock.withLock {
        self.handler = handler
        for event in pending { handler(event) }
        pending = []
      }
    }

    func send(_ event: Event) {
      lock.withLock {
        if let handler { handler(event) } else { pending.append(event) }
      }
    }
  }

  /// A flag the watcher thread reads.
  private final class Stopping: @unchecked Sendable {
    // @unchecked: `value` is read and written with `lock` held.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
  }

  // MARK: Keys and locale

  static func characterKey(_ value: Int32) -> Key {
    switch value {
    case 10, 13: return .enter
    case 27: return .escape
    case 8, 127: return .backspace
    default:
      guard let scalar = Unicode.Scalar(UInt32(bitPattern: value)) else { return .other(value) }
      return .character(Character(scalar))
    }
  }

  static func functionKey(_ value: Int32) -> Key {
    switch value {
    case KEY_UP: .up
    case KEY_DOWN: .down
    case KEY_LEFT: .left
    case KEY_RIGHT: .right
    case KEY_PPAGE: .pageUp
    case KEY_NPAGE: .pageDown
    case KEY_HOME: .home
    case KEY_END: .end
    case KEY_ENTER: .enter
    case KEY_BACKSPACE: .backspace
    case KEY_DC: .delete
    default: .other(value)
    }
  }

  /// The environment's locale when its character type is UTF-8, else `C.UTF-8`: ncurses measures and writes
  /// multibyte text by the locale.
  static func useUTF8Locale() {
    if let chosen = setlocale(LC_ALL, ""),
      String(cString: chosen).uppercased().contains("UTF-8")
        || String(cString: chosen).uppercased().contains("UTF8")
    {
      return
    }
    if let type = setlocale(LC_CTYPE, nil), String(cString: type).uppercased().contains("UTF") { return }
    if setlocale(LC_CTYPE, "C.UTF-8") == nil { _ = setlocale(LC_CTYPE, "en_US.UTF-8") }
  }
}
