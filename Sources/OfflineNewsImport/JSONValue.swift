import Foundation
import OfflineNewsModel

/// A JSON value as the importer sees it: integers kept exact (`Int64`), booleans told apart from numbers.
///
/// Read by ``parse(_:)`` (RFC 8259), which keeps an integer as exactly the `Int64` written, where
/// `JSONSerialization` would hand back a `Double` past 2^53 and a `Bool` indistinguishable from `1`.
package enum JSONValue: Sendable, Hashable, CustomStringConvertible {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number written without fraction or exponent that fits an `Int64`, exactly.
  case integer(Int64)
  /// Any other number, as a `Double`.
  case number(Double)
  /// A string, escapes resolved.
  case string(String)
  /// An array, in order.
  case array([JSONValue])
  /// An object; a repeated key keeps its last value (RFC 8259 leaves it open).
  case object([String: JSONValue])

  /// The value at a dotted key path (`source.name`, `items.0.id`), or `nil` when any step is missing.
  package subscript(path path: JSONPath) -> JSONValue? {
    var current = self
    for component in path.components {
      switch current {
      case .object(let fields):
        guard let next = fields[component] else { return nil }
        current = next
      case .array(let items):
        guard let index = Int(component), items.indices.contains(index) else { return nil }
        current = items[index]
      default: return nil
      }
    }
    return current
  }

  /// The object's fields, when it is one.
  package var object: [String: JSONValue]? {
    if case .object(let fields) = self { return fields }
    return nil
  }

  /// The string, when it is one.
  package var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The number as a `Double` whether written as an integer or not; `nil` for anything else (a boolean is not a
  /// number, RFC 8259 §3).
  package var numberValue: Double? {
    switch self {
    case .integer(let value): return Double(value)
    case .number(let value): return value
    default: return nil
    }
  }

  /// The array's elements, when it is one.
  package var arrayValue: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }

  /// The array's elements when it is an array of strings only; `nil` for anything else.
  package var stringArray: [String]? {
    guard case .array(let items) = self else { return nil }
    var strings: [String] = []
    strings.reserveCapacity(items.count)
    for item in items {
      guard case .string(let text) = item else { return nil }
      strings.append(text)
    }
    return strings
  }

  /// A short description for reports: `"text"`, `42`, `true`, `an object`, `an array of 3`.
  package var description: String {
    switch self {
    case .null: return "null"
    case .bool(let v): return String(v)
    case .integer(let v): return String(v)
    case .number(let v): return String(v)
    case .string(let v): return "\"\(v.count > 60 ? String(v.prefix(60)) + "…" : v)\""
    case .array(let v): return "an array of \(v.count)"
    case .object: return "an object"
    }
  }

  /// The value as JSON text (object keys sorted), for `json` attributes.
  package var jsonText: String {
    switch self {
    case .null: return "null"
    case .bool(let v): return v ? "true" : "false"
    case .integer(let v): return String(v)
    case .number(let v): return v.isFinite ? "\(v)" : "null"
    case .string(let v): return JSONText.quoted(v)
    case .array(let v): return "[" + v.map(\.jsonText).joined(separator: ",") + "]"
    case .object(let v):
      return "{"
        + v.sorted { $0.key < $1.key }.map { JSONText.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",")
        + "}"
    }
  }
}

/// A dotted path into JSON: `source.name`, `results`, or empty for the value itself (named so as not to shadow
/// Swift's own `KeyPath`).
///
/// For example, `JSONPath("source.name")` reads `"BBC"` out of `{"source": {"name": "BBC"}}` through
/// ``JSONValue/subscript(path:)``.
package struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The object keys, outermost first; empty for the value itself.
  package var components: [String]

  /// A path from its dotted text: `"a.b"` is `["a", "b"]`; `""` and `"$"` are the value itself. A key holding a
  /// dot cannot be named.
  package init(_ text: String) {
    components =
      text.isEmpty || text == "$" ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
  }
  /// A path from a string literal, as ``init(_:)``.
  package init(stringLiteral value: String) { self.init(value) }

  /// The dotted text: `a.b`.
  package var description: String { components.joined(separator: ".") }
}
