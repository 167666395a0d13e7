import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command writes: standard output for data, standard error for messages.
public struct Console: Sendable {
  /// Writes text to standard output.
  public var out: @Sendable (String) -> Void
  /// Writes text to standard error.
  public var err: @Sendable (String) -> Void
  /// Whether standard output is a terminal (human formatting, width fitting).
  public var isTerminal: Bool
  /// The terminal width in columns, when known.
  public var width: Int?

  public init(
    out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, isTerminal: Bool = false,
    width: Int? = nil
  ) {
    self.out = out
    self.err = err
    self.isTerminal = isTerminal
    self.width = width
  }

  /// The process's standard output and error.
  public static func standard(environment: [String: String]) -> Console {
    let terminal = isatty(STDOUT_FILENO) == 1
    var width: Int?
    if terminal {
      var size = winsize()
      if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { width = Int(size.ws_col) }
    }
    if width == nil, let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { width = columns }
    return Console(
      out: { FileHandle.standardOutput.write(Data($0.utf8)) },
      err: { FileHandle.standardError.write(Data($0.utf8)) },
      isTerminal: terminal, width: width)
  }

  /// A console that keeps what is written, for tests.
  public static func capturing() -> (Console, CapturedOutput) {
    let captured = CapturedOutput()
    return (Console(out: { captured.appendOut($0) }, err: { captured.appendErr($0) }), captured)
  }
}

/// What a ``Console/capturing()`` console received.
public final class CapturedOutput: Sendable {
  private let state = Mutex<(out: String, err: String)>(("", ""))
  public init() {}
  public var out: String { state.withLock { $0.out } }
  public var err: String { state.withLock { $0.err } }
  func appendOut(_ text: String) { state.withLock { $0.out += text } }
  func appendErr(_ text: String) { state.withLock { $0.err += text } }
}
