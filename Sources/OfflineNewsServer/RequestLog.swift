import Foundation
import OfflineNewsModel

/// The request log of `news serve`: one line per request on standard error — method, path (never its query, which
/// may carry a token: `?T=…`), status, milliseconds, peer, and for a refusal why — as text or, with `--json`, one
/// JSON object a line. It never holds a password, a token or a cookie: the front door gives it none.
///
/// Text: `GET /v1/entries 200 3.1ms 127.0.0.1`, `POST /login 401 512.0ms 127.0.0.1 (login failed)`.
/// JSON: `{"method":"GET","path":"/v1/entries","status":200,"ms":3.1,"peer":"127.0.0.1","note":null}`.
public struct RequestLog: Sendable {
  /// One request's entry.
  public struct Entry: Sendable, Encodable, Equatable {
    /// The method as sent.
    public var method: String
    /// The path without the query, control characters replaced by `?`, at most 200 characters.
    public var path: String
    /// The status answered.
    public var status: Int
    /// Milliseconds from the request reaching the front door to its response, to 0.1 ms.
    public var ms: Double
    /// The peer's address.
    public var peer: String
    /// Why a request was refused (`foreign host "evil.example"`, `login failed`), else `nil`.
    public var note: String?
  }

  /// Where each line goes (with its newline).
  public var write: @Sendable (String) -> Void
  /// JSON lines instead of text.
  public var json: Bool

  /// - Parameters: see the properties of the same names.
  public init(json: Bool = false, write: @escaping @Sendable (String) -> Void) {
    self.json = json
    self.write = write
  }

  /// A log that writes to standard error.
  public static func standardError(json: Bool) -> RequestLog {
    RequestLog(json: json) { line in FileHandle.standardError.write(Data(line.utf8)) }
  }

  /// A log that writes nothing.
  public static let none = RequestLog { _ in }

  /// Writes the line of `entry`.
  public func record(_ entry: Entry) {
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      // Every key, `null` for no note, as every `--json` document of `news` (``NullKeeping``).
      guard let data = try? encoder.encode(NullKeeping(value: entry)) else { return }
      write(String(decoding: data, as: UTF8.self) + "\n")
    } else {
      let ms = String(format: "%.1f", entry.ms)
      write(
        "\(entry.method) \(entry.path) \(entry.status) \(ms)ms \(entry.peer)"
          + (entry.note.map { " (\($0))" } ?? "") + "\n")
    }
  }

  /// `path` as the log shows it: control characters and spaces replaced by `?`, cut to 200 characters.
  public static func shown(_ path: String) -> String {
    let cleaned = String(
      String.UnicodeScalarView(
        path.unicodeScalars.map { $0.properties.generalCategory == .control || $0 == " " ? "?" : $0 }))
    return cleaned.count > 200 ? String(cleaned.prefix(200)) + "…" : cleaned
  }
}
