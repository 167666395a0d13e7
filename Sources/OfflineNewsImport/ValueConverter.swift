import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// Converts JSON values to stored values of an attribute's type, strictly: a value that cannot be converted is an
/// error with a reason, never a silent `nil`.
enum ValueConverter {
  /// Unwraps Parse Server's typed values (<https://docs.parseplatform.org/rest/guide/#data-types>):
  /// `Date` → its `iso` text; `File` → its `url`; `Pointer` → its `objectId`; `Bytes` → its `base64` text;
  /// `GeoPoint` → an object of `latitude`/`longitude`. `Relation` has no value here (its members come from join
  /// exports): `nil`.
  static func unwrapParse(_ value: JSONValue) -> JSONValue? {
    guard case .object(let fields) = value, case .string(let type)? = fields["__type"] else { return value }
    switch type {
    case "Date": return fields["iso"] ?? .null
    case "File": return fields["url"] ?? .null
    case "Pointer": return fields["objectId"] ?? .null
    case "Bytes": return fields["base64"] ?? .null
    case "GeoPoint":
      return .object(["latitude": fields["latitude"] ?? .null, "longitude": fields["longitude"] ?? .null])
    case "Relation": return nil
    default: return value
    }
  }

  /// ``unwrapParse(_:)`` applied to every value inside arrays and objects (a `Relation` becomes `null`).
  static func unwrapParseDeeply(_ value: JSONValue) -> JSONValue {
    switch unwrapParse(value) {
    case .none: return .null
    case .array(let items)?: return .array(items.map(unwrapParseDeeply))
    case .object(let fields)?: return .object(fields.mapValues(unwrapParseDeeply))
    case let other?: return other
    }
  }

  static func apply(_ transforms: [ValueTransform], to value: JSONValue) -> JSONValue {
    guard case .string(var text) = value else { return value }
    for transform in transforms {
      switch transform {
      case .trim: text = text.trimmingCharacters(in: .whitespacesAndNewlines)
      case .lowercase: text = text.lowercased()
      case .decodeHTMLEntities: text = HTMLEntities.decode(text)
      case .emptyIsNull: if text.isEmpty { return .null }
      }
    }
    return .string(text)
  }

  /// The stored value of `value` for `attribute`, or the reason it cannot be one.
  static func convert(_ value: JSONValue, to attribute: Attribute, mapping: AttributeMapping) -> Result<
    DatabaseValue, Problem
  > {
    let value = apply(mapping.transforms, to: value)
    if value == .null {
      if attribute.isOptional { return .success(.null) }
      if let fallback = attribute.defaultValue { return .success(fallback) }
      return .failure(Problem("null for the required attribute \(attribute.name)"))
    }
    switch attribute.type {
    case .text:
      switch value {
      case .string(let text): return .success(.text(text))
      case .integer(let number): return .success(.text(String(number)))
      case .number(let number):
        return .success(
          .text(number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)))
      default: return .failure(Problem("expected text, found \(kind(value))"))
      }
    case .integer:
      switch value {
      case .integer(let number): return .success(.integer(number))
      case .number(let number) where number == number.rounded() && abs(number) < 9.2e18:
        return .success(.integer(Int64(number)))
      case .string(let text):
        guard let number = Int64(text.trimmingCharacters(in: .whitespaces)) else {
          return .failure(Problem("not an integer: \(value)"))
        }
        return .success(.integer(number))
      default: return .failure(Problem("expected an integer, found \(kind(value))"))
      }
    case .real:
      switch value {
      case .integer(let number): return .success(.real(Double(number)))
      case .number(let number): return .success(.real(number))
      case .string(let text):
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else {
          return .failure(Problem("not a number: \(value)"))
        }
        return .success(.real(number))
      default: return .failure(Problem("expected a number, found \(kind(value))"))
      }
    case .bool:
      switch value {
      case .bool(let flag): return .success(.integer(flag ? 1 : 0))
      case .string(let text) where ["true", "false"].contains(text.lowercased()):
        return .success(.integer(text.lowercased() == "true" ? 1 : 0))
      default: return .failure(Problem("expected true or false, found \(kind(value)) (a number is not a boolean)"))
      }
    case .date:
      switch value {
      case .string(let text):
        if let unit = mapping.unixTime, let number = Double(text) { return unixDate(number, unit) }
        guard let timestamp = Timestamp(rfc3339: text, assumingOffset: mapping.assumedOffset) else {
          let hint = mapping.assumedOffset == nil && looksZoneless(text) ? " (no offset: declare assumeOffset)" : ""
          return .failure(Problem("not an RFC 3339 date-time: \(value)\(hint)"))
        }
        return .success(.integer(timestamp.millisecondsSince1970))
      case .integer(let number):
        guard let unit = mapping.unixTime else {
          return .failure(Problem("a number for a date: declare unixTime seconds or milliseconds"))
        }
        return unixDate(Double(number), unit, exact: number)
      case .number(let number):
        guard let unit = mapping.unixTime else {
          return .failure(Problem("a number for a date: declare unixTime seconds or milliseconds"))
        }
        return unixDate(number, unit)
      default: return .failure(Problem("expected a date, found \(kind(value))"))
      }
    case .url:
      guard case .string(let text) = value else { return .failure(Problem("expected a URL, found \(kind(value))")) }
      let trimmed = text.trimmingCharacters(in: .whitespaces)
      guard let url = URL(string: trimmed), let scheme = url.scheme, !scheme.isEmpty,
        url.host?.isEmpty == false || scheme == "file" || scheme == "mailto"
      else { return .failure(Problem("not an absolute URL: \(value)")) }
      return .success(.text(url.absoluteString))
    case .data:
      guard case .string(let text) = value, let data = Data(base64Encoded: text) else {
        return .failure(Problem("expected base64 data, found \(kind(value))"))
      }
      return .success(.blob(Array(data)))
    case .json:
      return .success(.text(unwrapParseDeeply(value).jsonText))
    }
  }

  /// An identity value normalized to the identity attribute's type, so `"42"` and `42` are the same key; `nil` when
  /// the value cannot be an identity of that type.
  static func identity(_ value: JSONValue, type: AttributeType, mapping: AttributeMapping = AttributeMapping())
    -> DatabaseValue?
  {
    switch (type, value) {
    case (.text, .string(let text)), (.url, .string(let text)): return text.isEmpty ? nil : .text(text)
    case (.text, .integer(let number)): return .text(String(number))
    case (.text, .number(let number)) where number == number.rounded() && abs(number) < 1e15:
      return .text(String(Int64(number)))
    case (_, .null), (_, .array), (_, .object), (_, .bool): return nil
    default:
      guard
        case .success(let stored) = convert(value, to: Attribute("identity", type, optional: false), mapping: mapping),
        stored != .null
      else { return nil }
      return stored
    }
  }

  static func literal(_ value: JSONValue, type: AttributeType, place: String) throws(MappingProblem) -> DatabaseValue {
    switch convert(value, to: Attribute("default", type), mapping: AttributeMapping()) {
    case .success(let stored): return stored
    case .failure(let problem): throw MappingProblem("\(place): \(problem.reason)")
    }
  }

  private static func unixDate(_ number: Double, _ unit: UnixTime, exact: Int64? = nil) -> Result<
    DatabaseValue, Problem
  > {
    guard number.isFinite, abs(number) < 1e16 else { return .failure(Problem("Unix time out of range: \(number)")) }
    switch unit {
    case .seconds:
      if let exact, abs(exact) < 9_000_000_000_000 { return .success(.integer(exact * 1000)) }
      // 1.001 s × 1000 is 1000.9999… in binary: take the nearest millisecond when within a microsecond of it.
      let product = number * 1000
      let nearest = product.rounded()
      return .success(.integer(Int64(abs(product - nearest) < 1e-3 ? nearest : product.rounded(.down))))
    case .milliseconds:
      return .success(.integer(exact ?? Int64(number.rounded(.down))))
    }
  }

  private static func looksZoneless(_ text: String) -> Bool {
    text.count >= 19 && !text.hasSuffix("Z") && !text.hasSuffix("z")
      && !text.dropFirst(19).contains { $0 == "+" || $0 == "-" }
  }

  static func kind(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "a boolean"
    case .integer, .number: return "a number"
    case .string: return "text"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  struct Problem: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
  }
}
