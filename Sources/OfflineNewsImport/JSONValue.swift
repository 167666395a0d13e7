import Foundation

/// A JSON value as the importer sees it: integers kept exact (`Int64`), booleans told apart from numbers.
///
/// Decoded with Foundation's `JSONDecoder` (RFC 8259), which reads an integer as exactly the `Int64` written, where
/// `JSONSerialization` would hand back a `Double` past 2^53 and a `Bool` indistinguishable from `1`.
public enum JSONValue: Sendable, Hashable, Decodable, CustomStringConvertible {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    if var array = try? decoder.unkeyedContainer() {
      var values: [JSONValue] = []
      if let count = array.count { values.reserveCapacity(count) }
      while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
      self = .array(values)
      return
    }
    if let object = try? decoder.container(keyedBy: AnyKey.self) {
      var values: [String: JSONValue] = [:]
      for key in object.allKeys { values[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
      self = .object(values)
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let value = try? single.decode(String.self) {
      self = .string(value)
    } else if let value = try? single.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? single.decode(Int64.self) {
      self = .integer(value)
    } else {
      self = .number(try single.decode(Double.self))
    }
  }

  /// Parses JSON text.
  ///
  /// - Throws: ``ImportError/invalidJSON(_:)`` with where the text stops being valid JSON.
  public static func parse(_ data: Data) throws(ImportError) -> JSONValue {
    do {
      return try JSONDecoder().decode(JSONValue.self, from: data)
    } catch let DecodingError.dataCorrupted(context) {
      let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
      throw .invalidJSON(underlying ?? context.debugDescription)
    } catch {
      throw .invalidJSON("\(error)")
    }
  }

  /// The value at a dotted key path (`source.name`, `items.0.id`), or `nil` when any step is missing.
  public subscript(path path: KeyPath) -> JSONValue? {
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
  public var object: [String: JSONValue]? {
    if case .object(let fields) = self { return fields }
    return nil
  }

  /// A short description for reports: `"text"`, `42`, `true`, `an object`, `an array of 3`.
  public var description: String {
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
  public var jsonText: String {
    switch self {
    case .null: return "null"
    case .bool(let v): return v ? "true" : "false"
    case .integer(let v): return String(v)
    case .number(let v): return v.isFinite ? "\(v)" : "null"
    case .string(let v): return Self.quoted(v)
    case .array(let v): return "[" + v.map(\.jsonText).joined(separator: ",") + "]"
    case .object(let v):
      return "{"
        + v.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",")
        + "}"
    }
  }

  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}

struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) {
    stringValue = String(intValue)
    self.intValue = intValue
  }
}

/// A dotted path into JSON: `source.name`, `results`, or empty for the value itself.
public struct KeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
  public var components: [String]

  public init(_ text: String) {
    components =
      text.isEmpty || text == "$" ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
  }
  public init(stringLiteral value: String) { self.init(value) }

  public var description: String { components.joined(separator: ".") }
}
