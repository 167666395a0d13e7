/// The type of an entity's attribute, and how it is stored in SQLite.
///
/// | type | Swift value | stored as |
/// |---|---|---|
/// | `text` | `String` | TEXT |
/// | `integer` | `Int64` | INTEGER |
/// | `real` | `Double` | REAL |
/// | `bool` | `Bool` | INTEGER 0 or 1 |
/// | `date` | `Date`, ``Timestamp`` | INTEGER milliseconds since 1970-01-01T00:00:00Z (UTC) |
/// | `url` | `URL` | TEXT (absolute URL string) |
/// | `data` | `[UInt8]` | BLOB |
/// | `json` | JSON text | TEXT, checked with `json_valid` |
package enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
  case text, integer, real, bool, date, url, data, json

  /// The SQLite column type (its type affinity, <https://www.sqlite.org/datatype3.html>).
  package var sqlType: String {
    switch self {
    case .text, .url, .json: return "TEXT"
    case .integer, .bool, .date: return "INTEGER"
    case .real: return "REAL"
    case .data: return "BLOB"
    }
  }

  /// Whether `value` is a valid stored value of this type (NULL aside).
  func accepts(_ value: DatabaseValue) -> Bool {
    switch (self, value) {
    case (_, .null): return true
    case (.text, .text), (.url, .text), (.json, .text): return true
    case (.integer, .integer), (.date, .integer): return true
    case (.bool, .integer(let v)): return v == 0 || v == 1
    case (.real, .real), (.real, .integer): return true
    case (.data, .blob): return true
    default: return false
    }
  }
}
