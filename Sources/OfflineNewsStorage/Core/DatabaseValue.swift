import Foundation
import OfflineNewsModel

/// A value as SQLite stores it: one of its five storage classes.
///
/// Related SQLite documentation: <https://www.sqlite.org/datatype3.html>
public enum DatabaseValue: Sendable, Hashable {
  /// SQL `NULL`.
  case null
  /// A 64-bit signed integer (`INTEGER`); instants are stored as milliseconds since 1970-01-01 UTC.
  case integer(Int64)
  /// An IEEE 754 double (`REAL`).
  case real(Double)
  /// UTF-8 text (`TEXT`).
  case text(String)
  /// Bytes as given (`BLOB`).
  case blob([UInt8])
}

/// A Swift value that can be bound to a statement parameter.
public protocol DatabaseValueConvertible: Sendable {
  /// The value as SQLite stores it.
  var databaseValue: DatabaseValue { get }
}

extension DatabaseValue: DatabaseValueConvertible {
  /// The value itself.
  public var databaseValue: DatabaseValue { self }
}
extension String: DatabaseValueConvertible {
  /// `TEXT`.
  public var databaseValue: DatabaseValue { .text(self) }
}
extension Int64: DatabaseValueConvertible {
  /// `INTEGER`.
  public var databaseValue: DatabaseValue { .integer(self) }
}
extension Int: DatabaseValueConvertible {
  /// `INTEGER`.
  public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}
extension Double: DatabaseValueConvertible {
  /// `REAL`.
  public var databaseValue: DatabaseValue { .real(self) }
}
extension Bool: DatabaseValueConvertible {
  /// `INTEGER` 1 for `true`, 0 for `false`.
  public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}
extension URL: DatabaseValueConvertible {
  /// `TEXT`: the absolute string.
  public var databaseValue: DatabaseValue { .text(absoluteString) }
}
extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
  /// The wrapped value's, or `NULL` for `nil`.
  public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}
extension Date: DatabaseValueConvertible {
  /// A date is stored as INTEGER milliseconds since 1970-01-01T00:00:00Z (UTC).
  public var databaseValue: DatabaseValue { .integer(Timestamp(self).millisecondsSince1970) }
}
extension Timestamp: DatabaseValueConvertible {
  /// `INTEGER` milliseconds since 1970-01-01T00:00:00Z (UTC).
  package var databaseValue: DatabaseValue { .integer(millisecondsSince1970) }
}

extension DatabaseValue: Codable {
  private enum CodingKeys: String, CodingKey { case null, integer, real, text, blob }

  /// Encoded with its storage class as the key, e.g. `{"integer":0}`, so the class survives a round trip.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .null: try c.encode(true, forKey: .null)
    case .integer(let v): try c.encode(v, forKey: .integer)
    case .real(let v): try c.encode(v, forKey: .real)
    case .text(let v): try c.encode(v, forKey: .text)
    case .blob(let v): try c.encode(Data(v).base64EncodedString(), forKey: .blob)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    if let v = try c.decodeIfPresent(Int64.self, forKey: .integer) {
      self = .integer(v)
    } else if let v = try c.decodeIfPresent(Double.self, forKey: .real) {
      self = .real(v)
    } else if let v = try c.decodeIfPresent(String.self, forKey: .text) {
      self = .text(v)
    } else if let v = try c.decodeIfPresent(String.self, forKey: .blob), let data = Data(base64Encoded: v) {
      self = .blob(Array(data))
    } else {
      self = .null
    }
  }
}

extension DatabaseValue {
  /// The text, when this is `.text`.
  var textValue: String? {
    if case .text(let text) = self { return text }
    return nil
  }

  /// The integer, when this is `.integer`.
  var integerValue: Int64? {
    if case .integer(let number) = self { return number }
    return nil
  }
}
