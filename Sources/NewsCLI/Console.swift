import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command writes: standard output for data, standard error for messages and progress.
///
/// A console also says what its two streams are: whether each is a terminal, how wide it is, and whether colour may
/// be used on it. Colour is decided once, in ``standard(environment:)``: only on a terminal, never when `NO_COLOR`
/// is set to a non-empty value (<https://no-color.org>), never when `TERM` is `dumb`. Anything else (a pipe, a file,
/// a test) gets plain text without a single escape code.
public struct Console: Sendable {
  /// Writes text to standard output.
  public var out: @Sendable (String) -> Void
  /// Writes text to standard error.
  public var err: @Sendable (String) -> Void
  /// Whether standard output is a terminal (human formatting, width fitting).
  public var isTerminal: Bool
  /// The width of standard output in columns, when known (the terminal's, else `$COLUMNS`).
  public var width: Int?
  /// Whether standard output may carry colour and text attributes (ANSI SGR escape codes).
  public var color: Bool
  /// Whether standard error is a terminal (progress lines are drawn only there).
  public var errorIsTerminal: Bool
  /// The width of standard error in columns, when it is a terminal and its size is known.
  public var errorWidth: Int?
  /// Whether standard error may carry colour (used by ``printError(_:hint:)``).
  public var errorColor: Bool

  public init(
    out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, isTerminal: Bool = false,
    width: Int? = nil, color: Bool = false, errorIsTerminal: Bool = false, errorWidth: Int? = nil,
    errorColor: Bool = false
  ) {
    self.out = out
    self.err = err
    self.isTerminal = isTerminal
    self.width = width
    self.color = color
    self.errorIsTerminal = errorIsTerminal
    self.errorWidth = errorWidth
    self.errorColor = errorColor
  }

  /// The process's standard output and error, with colour decided by ``wantsColor(isTerminal:environment:)``.
  public static func standard(environment: [String: String]) -> Console {
    let terminal = isatty(STDOUT_FILENO) == 1
    let errorTerminal = isatty(STDERR_FILENO) == 1
    var width = terminal ? terminalWidth(STDOUT_FILENO) : nil
    if width == nil, let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { width = columns }
    return Console(
      out: { FileHandle.standardOutput.write(Data($0.utf8)) },
      err: { FileHandle.standardError.write(Data($0.utf8)) },
      isTerminal: terminal, width: width, color: wantsColor(isTerminal: terminal, environment: environment),
      errorIsTerminal: errorTerminal, errorWidth: errorTerminal ? terminalWidth(STDERR_FILENO) : nil,
      errorColor: wantsColor(isTerminal: errorTerminal, environment: environment))
  }

  /// Whether a stream may be coloured: it is a terminal, `NO_COLOR` is absent or empty, and `TERM` is not `dumb`.
  public static func wantsColor(isTerminal: Bool, environment: [String: String]) -> Bool {
    guard isTerminal else { return false }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    return environment["TERM"] != "dumb"
  }

  /// How `--color WHEN` chooses colour: `auto` (the default) as ``wantsColor(isTerminal:environment:)`` decides,
  /// `always` on both streams even on a pipe or with `NO_COLOR` (a flag on the command line overrides the
  /// environment, as <https://no-color.org> asks), `never` on neither.
  public enum ColorChoice: String, Sendable, CaseIterable {
    case auto, always, never
  }

  /// This console with colour chosen by `choice`.
  public func coloring(_ choice: ColorChoice) -> Console {
    var console = self
    switch choice {
    case .auto: break
    case .always: (console.color, console.errorColor) = (true, true)
    case .never: (console.color, console.errorColor) = (false, false)
    }
    return console
  }

  /// The width in columns of the terminal behind `descriptor`, or `nil`.
  private static func terminalWidth(_ descriptor: Int32) -> Int? {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// A console that keeps what is written, for tests. By default neither stream is a terminal and there is no
  /// colour; pass the properties to simulate a terminal.
  public static func capturing(
    isTerminal: Bool = false, width: Int? = nil, color: Bool = false, errorIsTerminal: Bool = false,
    errorWidth: Int? = nil, errorColor: Bool = false
  ) -> (Console, CapturedOutput) {
    let captured = CapturedOutput()
    let console = Console(
      out: { captured.appendOut($0) }, err: { captured.appendErr($0) }, isTerminal: isTerminal, width: width,
      color: color, errorIsTerminal: errorIsTerminal, errorWidth: errorWidth, errorColor: errorColor)
    return (console, captured)
  }

  // MARK: Text

  /// Prints human-readable text on standard output with every line fitted to ``width`` when there is one (clipped
  /// with `…`, escape codes and bidi scopes kept whole, see ``OutputFormat/clip(_:_:)``). The fields of the data in
  /// `text` must already be sanitized (``OutputFormat/sanitized(_:collapsingWhitespace:)``). `--json` documents are
  /// written with ``out`` instead, as they are.
  public func printLines(_ text: String) {
    guard let width, width > 0 else { return out(text) }
    out(Self.fitted(text, width: width))
  }

  /// `text` with each line clipped to `width` display columns.
  static func fitted(_ text: String, width: Int) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      OutputFormat.displayWidth(line) > width ? OutputFormat.clip(String(line), width) : String(line)
    }.joined(separator: "\n")
  }

  // MARK: Messages

  /// Prints an error the way every `news` error looks, on standard error:
  /// ```
  /// news: <message>
  /// hint: <hint>
  /// ```
  /// (the hint line only when there is one). On a colour terminal `news:` is red and `hint:` bold; the words are the
  /// same. Line breaks in the message are shown as spaces, so one error stays one line, and it is made safe for a
  /// terminal as ``TerminalText/message(_:)`` says (no escape codes, no open bidi override, no hidden characters).
  public func printError(_ message: String, hint: String? = nil) {
    err(Self.errorText(message, hint: hint, color: errorColor))
  }

  /// The text ``printError(_:hint:)`` writes.
  public static func errorText(_ message: String, hint: String?, color: Bool) -> String {
    let style = TextStyle(enabled: color)
    var text = style.apply(.red, "news:") + " " + TerminalText.message(message) + "\n"
    if let hint {
      // A hint of several lines (the candidates of an ambiguous handle) keeps them: each line made safe alone.
      let lines = hint.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.message(String($0)) }
      text += style.apply(.bold, "hint:") + " " + lines.joined(separator: "\n") + "\n"
    }
    return text
  }

  /// Prints a note on standard error: a line for a person, never data (e.g. "nothing cached yet").
  public func printNote(_ message: String) {
    err(TerminalText.message(message) + "\n")
  }
}

/// What a ``Console/capturing(isTerminal:width:color:errorIsTerminal:errorWidth:errorColor:)`` console received.
public final class CapturedOutput: Sendable {
  private let state = Mutex<(out: String, err: String)>(("", ""))
  public init() {}
  public var out: String { state.withLock { $0.out } }
  public var err: String { state.withLock { $0.err } }
  func appendOut(_ text: String) { state.withLock { $0.out += text } }
  func appendErr(_ text: String) { state.withLock { $0.err += text } }
}

/// ANSI SGR text attributes, applied only when enabled: a disabled style returns the text unchanged, so no escape
/// code is ever written to a pipe, a file, or a terminal with `NO_COLOR`.
struct TextStyle: Sendable {
  /// An SGR attribute.
  enum Attribute: String, Sendable {
    case bold = "1"
    case dim = "2"
    case red = "31"
    case green = "32"
    case yellow = "33"
    case cyan = "36"
    case boldYellow = "1;33"
  }

  var enabled: Bool

  /// `text` wrapped in the attribute's escape code and a reset; `text` itself when disabled or empty.
  func apply(_ attribute: Attribute, _ text: String) -> String {
    guard enabled, !text.isEmpty else { return text }
    return "\u{1B}[\(attribute.rawValue)m" + text + "\u{1B}[0m"
  }
}
