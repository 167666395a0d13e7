import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// `news entities` and `news records ENTITY`: any entity's rows, for any mapping's data.
struct EntitiesCommand: NewsCommand {
  static let name = "entities"
  static let summary = "List the entities in the database with their row counts."

  typealias Option = NoOption
  static let storeOptions = StoreOptions<Option>(json: "[{name, rows, identity, attributes, relationships}]")

  struct Entry: Encodable {
    var name: String
    var rows: Int
    var identity: [String]
    var attributes: [String: String]
    var relationships: [String: String]
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    let storage = try context.makeStorage(arguments.common, reading: true)
    let counts: [(entity: String, count: Int)]
    counts = try await storage.entityCounts()
    let entries = counts.compactMap { count -> Entry? in
      guard let entity = try? storage.entity(count.entity) else { return nil }
      return Entry(
        name: entity.name, rows: count.count, identity: entity.identity,
        attributes: Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, $0.type.rawValue) }),
        relationships: Dictionary(
          uniqueKeysWithValues: entity.relationships.map { ($0.name, "\($0.kind.rawValue) \($0.destination)") }))
    }
    if arguments.json {
      context.console.out(OutputFormat.json(entries))
    } else {
      let width = max(20, (entries.map(\.name.count).max() ?? 0) + 1)
      for entry in entries {
        context.console.printLines(
          pad(OutputFormat.sanitized(entry.name), width) + "\(entry.rows) row\(entry.rows == 1 ? "" : "s")\n")
      }
    }
    return .success
  }
}

struct RecordsCommand: NewsCommand {
  static let name = "records"
  static let summary = "Print the rows of an entity: attributes by name, relationships as the related identities."
  static let positionals = [PositionalSpec(name: "ENTITY", help: "An entity name, as `news entities` lists them.")]
  static let details = """
    Rows come in identity order. Dates print as RFC 3339 UTC with milliseconds, booleans as true/false, json
    attributes as JSON, data as base64, to-one relationships as the related identity, to-many as an array of them.
    """

  static let storeOptions = StoreOptions<Option>(
    json: "an array of objects keyed by attribute name; to-many as arrays")

  enum Option: CommandOption {
    case limit, offset
    var spec: OptionSpec {
      switch self {
      case .limit:
        OptionSpec(name: "limit", valueName: "N", help: "At most N rows (default: all).", type: .integer(minimum: 0))
      case .offset:
        OptionSpec(name: "offset", valueName: "N", help: "Skip the first N rows.", type: .integer(minimum: 0))
      }
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    guard let name = arguments.positionals.first else {
      throw CommandFailure(.usage, "which entity? usage: news records ENTITY", hint: "'news entities' lists them")
    }
    let limit = arguments.integer(.limit)
    let offset = arguments.integer(.offset) ?? 0
    let storage = try context.makeStorage(arguments.common, reading: true)
    let entity: EntityDescription
    do {
      entity = try storage.entity(name)
    } catch {
      let known = storage.entities.map(\.name).joined(separator: ", ")
      throw CommandFailure(.usage, "no entity named \"\(name)\"", hint: "entities: \(known)")
    }
    let records = try await storage.fetch(
      FetchRequest(
        entity: name, sortDescriptors: entity.identity.map { SortDescriptor($0) }, limit: limit, offset: offset))
    let objects = records.map { Self.object($0, entity) }
    if arguments.json {
      let data =
        (try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes]))
        ?? Data("[]".utf8)
      context.console.out(String(decoding: data, as: UTF8.self) + "\n")
    } else {
      for object in objects {
        let fields = object.sorted { $0.key < $1.key }.map { key, value in
          "\(OutputFormat.sanitized(key))=\(OutputFormat.clip(OutputFormat.sanitized(Self.text(value)), 60))"
        }
        context.console.printLines(fields.joined(separator: "  ") + "\n")
      }
    }
    return .success
  }

  /// A record as a JSON object (Foundation property-list types).
  static func object(_ record: Record, _ entity: EntityDescription) -> [String: Any] {
    var object: [String: Any] = [:]
    for attribute in entity.attributes {
      object[attribute.name] = json(record.values[attribute.name] ?? .null, attribute.type)
    }
    for relationship in entity.relationships {
      switch relationship.kind {
      case .toOne: object[relationship.name] = json(record.values[relationship.name] ?? .null, nil)
      case .toMany: object[relationship.name] = (record.toMany[relationship.name] ?? []).map { json($0, nil) }
      }
    }
    return object
  }

  static func json(_ value: DatabaseValue, _ type: AttributeType?) -> Any {
    switch (value, type) {
    case (.null, _): return NSNull()
    case (.integer(let ms), .date?): return Timestamp(millisecondsSince1970: ms).rfc3339String
    case (.integer(let flag), .bool?): return flag != 0
    case (.text(let text), .json?):
      return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? text
    case (.integer(let number), _): return number
    case (.real(let number), _): return number
    case (.text(let text), _): return text
    case (.blob(let bytes), _): return Data(bytes).base64EncodedString()
    }
  }

  static func text(_ value: Any) -> String {
    switch value {
    case is NSNull: return "null"
    case let text as String: return text
    case let array as [Any]: return "[" + array.map(text).joined(separator: ",") + "]"
    default:
      if let data = try? JSONSerialization.data(
        withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
      {
        return String(decoding: data, as: UTF8.self)
      }
      return "\(value)"
    }
  }
}
