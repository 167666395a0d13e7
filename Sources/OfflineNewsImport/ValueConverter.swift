import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// What a conversion needs besides the value and the attribute: the attribute's mapping, and what the import
/// found for it in the document.
struct ConversionOptions {
  var mapping = AttributeMapping()
  /// The mapping's ``ImportMapping/assumedOffset``: used for date-times without an offset when the attribute has
  /// no `assumeOffset` of its own, and reported.
  var defaultOffset: Int?
  /// The base URL a relative reference resolves against (the attribute's `baseURL`, as found in the document).
  var base: URL?
  /// Where the base was looked for, for messages: `home_page_url, feed_url`.
  var baseSources = ""
  /// The formatter of the attribute's `format` pattern.
  var formatter: DateFormatter?
}

/// A converted value, and a caveat to report when the value is stored with an assumption (an assumed offset).
struct Converted {
  var value: DatabaseValue
  var caveat: String?
}

/// Converts JSON values to stored values of an attribute's type, strictly: a value that cannot be converted is an
/// error with a reason, never a silent `nil`.
enum ValueConverter {
  /// Unwraps Parse Server's typed values (<https://docs.parseplatform.org/rest/guide/#data-types>):
  /// `Date` → its `iso` text; `File` → its `url`; `Pointer` → its `objectId`; `Bytes` → its `base64` text;
  /// `GeoPoint` → an object of `latitude`/`longitude`. `Relation` has no value here (its members come from join
  /// exports): `nil`. Unwrapped again while the result is a typed value: data migrations leave
  /// `{"__type": "Date", "iso": {"__type": "Date", "iso": "…"}}`.
  static func unwrapParse(_ value: JSONValue) -> JSONValue? {
    var current = value
    while case .object(let fields) = current, case .string(let type)? = fields["__type"] {
      switch type {
      case "Date": current = fields["iso"] ?? .null
      case "File": current = fields["url"] ?? .null
      case "Pointer": current = fields["objectId"] ?? .null
      case "Bytes": current = fields["base64"] ?? .null
      case "GeoPoint":
        return .object(["latitude": fields["latitude"] ?? .null, "longitude": fields["longitude"] ?? .null])
      case "Relation": return nil
      default: return current
      }
    }
    return current
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
      case .trim: text = text.trimmingWhiteSpace
      case .lowercase: text = text.lowercased()
      case .decodeHTMLEntities: text = HTMLEntities.decode(text)
      case .emptyIsNull: if text.isEmpty { return .null }
      case .blankIsNull: if text.unicodeScalars.allSatisfy(\.isWhiteSpace) { return .null }
      }
    }
    return .string(text)
  }

  /// The stored value of `value` for `attribute`, or the reason it cannot be one.
  static func convert(_ value: JSONValue, to attribute: Attribute, options: ConversionOptions) -> Result<
    Converted, Problem
  > {
    let mapping = options.mapping
    let value = apply(mapping.transforms, to: value)
    func stored(_ value: DatabaseValue) -> Result<Converted, Problem> { .success(Converted(value: value)) }
    if value == .null {
      if attribute.isOptional { return stored(.null) }
      if let fallback = attribute.defaultValue { return stored(fallback) }
      return .failure(Problem("null for the required attribute \(attribute.name)"))
    }
    switch attribute.type {
    case .text:
      switch value {
      case .string(let text):
        if !mapping.baseURL.isEmpty { return resolvedURL(text, options).map { Converted(value: .text($0)) } }
        return stored(.text(text))
      case .integer(let number): return stored(.text(String(number)))
      case .number(let number):
        return stored(.text(number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)))
      default: return .failure(Problem("expected text, found \(kind(value))"))
      }
    case .integer:
      switch value {
      case .integer(let number): return stored(.integer(number))
      case .number(let number) where number == number.rounded() && abs(number) < 9.2e18:
        return stored(.integer(Int64(number)))
      case .string(let text):
        guard let number = Int64(text.trimmingWhiteSpace) else {
          return .failure(Problem("not an integer: \(value)"))
        }
        return stored(.integer(number))
      default: return .failure(Problem("expected an integer, found \(kind(value))"))
      }
    case .real:
      switch value {
      case .integer(let number): return stored(.real(Double(number)))
      case .number(let number): return stored(.real(number))
      case .string(let text):
        guard let number = Double(text.trimmingWhiteSpace), number.isFinite else {
          return .failure(Problem("not a number: \(value)"))
        }
        return stored(.real(number))
      default: return .failure(Problem("expected a number, found \(kind(value))"))
      }
    case .bool:
      switch value {
      case .bool(let flag): return stored(.integer(flag ? 1 : 0))
      case .string(let text) where ["true", "false"].contains(text.lowercased()):
        return stored(.integer(text.lowercased() == "true" ? 1 : 0))
      default: return .failure(Problem("expected true or false, found \(kind(value)) (a number is not a boolean)"))
      }
    case .date: return DateConversion.convert(value, options)
    case .url:
      guard case .string(let text) = value else { return .failure(Problem("expected a URL, found \(kind(value))")) }
      return resolvedURL(text, options).map { Converted(value: .text($0)) }
    case .data:
      guard case .string(let text) = value, let data = Data(base64Encoded: text) else {
        return .failure(Problem("expected base64 data, found \(kind(value))"))
      }
      return stored(.blob(Array(data)))
    case .json:
      return stored(.text(unwrapParseDeeply(value).jsonText))
    }
  }

  /// An absolute URL: `text` itself, or — with a base — `text` resolved against it (RFC 3986 §5.2).
  static func resolvedURL(_ text: String, _ options: ConversionOptions) -> Result<String, Problem> {
    let trimmed = text.trimmingWhiteSpace
    func absolute(_ url: URL?) -> String? {
      guard let url, let scheme = url.scheme, !scheme.isEmpty,
        url.host?.isEmpty == false || scheme == "file" || scheme == "mailto"
      else { return nil }
      return url.absoluteString
    }
    if let url = absolute(URL(string: trimmed)) { return .success(url) }
    // A relative reference (RFC 3986 §4.2) has no spaces, controls or characters URIs never hold unescaped.
    let forbidden = CharacterSet(charactersIn: " \"<>\\^`{|}").union(.controlCharacters)
    let isReference = !trimmed.isEmpty && trimmed.rangeOfCharacter(from: forbidden) == nil
    if let base = options.base, isReference, let url = absolute(URLReference.resolve(trimmed, against: base)) {
      return .success(url)
    }
    if options.mapping.baseURL.isEmpty {
      let hint =
        isReference && URL(string: trimmed)?.scheme == nil ? " (a relative reference: declare \"baseURL\")" : ""
      return .failure(Problem("not an absolute URL: \(JSONValue.string(text))\(hint)"))
    }
    if options.base == nil, isReference {
      return .failure(
        Problem(
          "a relative URL \(JSONValue.string(text)), and the document has no absolute base URL at \(options.baseSources)"
        ))
    }
    return .failure(Problem("not a URL reference: \(JSONValue.string(text))"))
  }

  /// An identity value normalized to the identity attribute's type, so `"42"` and `42` are the same key; `nil` when
  /// the value cannot be an identity of that type.
  static func identity(_ value: JSONValue, type: AttributeType, options: ConversionOptions = ConversionOptions())
    -> DatabaseValue?
  {
    switch (type, value) {
    case (.text, .string(let text)), (.url, .string(let text)):
      guard !text.isEmpty else { return nil }
      guard !options.mapping.baseURL.isEmpty else { return .text(text) }
      guard case .success(let url) = resolvedURL(text, options) else { return nil }
      return .text(url)
    case (.text, .integer(let number)): return .text(String(number))
    case (.text, .number(let number)) where number == number.rounded() && abs(number) < 1e15:
      return .text(String(Int64(number)))
    case (_, .null), (_, .array), (_, .object), (_, .bool): return nil
    default:
      guard
        case .success(let stored) = convert(value, to: Attribute("identity", type, optional: false), options: options),
        stored.value != .null
      else { return nil }
      return stored.value
    }
  }

  static func literal(_ value: JSONValue, type: AttributeType, place: String) throws(MappingProblem) -> DatabaseValue {
    switch convert(value, to: Attribute("default", type), options: ConversionOptions()) {
    case .success(let stored): return stored.value
    case .failure(let problem):
      throw MappingProblem("\(place): \(problem.reason): write a value of type \(type.rawValue) (or null)")
    }
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
