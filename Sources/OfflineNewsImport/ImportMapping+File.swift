import Foundation
import OfflineNewsStorage

extension ImportMapping {
  /// Reads a mapping file (the format is documented in `docs/MAPPING.md`).
  ///
  /// - Throws: ``ImportError/invalidMapping(_:)`` naming the file and the key at fault: unknown keys, wrong types,
  ///   unknown attribute types, relationships to entities the mapping does not declare.
  public static func load(contentsOf url: URL) throws(ImportError) -> ImportMapping {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw .invalidMapping("cannot read \(url.path)")
    }
    let json: JSONValue
    do {
      json = try JSONValue.parse(data)
    } catch {
      throw .invalidMapping("\(url.path): \(error)")
    }
    do {
      return try MappingReader(file: url.lastPathComponent).mapping(json)
    } catch {
      throw .invalidMapping("\(url.path): \(error.message)")
    }
  }

  /// Parses a mapping from its JSON.
  public static func parse(_ json: JSONValue, name: String = "mapping") throws(ImportError) -> ImportMapping {
    do {
      return try MappingReader(file: name).mapping(json)
    } catch {
      throw .invalidMapping(error.message)
    }
  }
}

struct MappingProblem: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

/// Reads mapping JSON strictly: every key known, every value of the right type, every error naming its place.
struct MappingReader {
  var file: String

  func object(_ value: JSONValue?, _ place: String, allowed: Set<String>) throws(MappingProblem) -> [String: JSONValue]
  {
    guard case .object(let fields)? = value else { throw MappingProblem("\(place) must be an object") }
    for key in fields.keys.sorted() where !allowed.contains(key) {
      throw MappingProblem(
        "unknown key \"\(place.isEmpty ? key : "\(place).\(key)")\" (known: \(allowed.sorted().joined(separator: ", ")))"
      )
    }
    return fields
  }

  func string(_ value: JSONValue?, _ place: String) throws(MappingProblem) -> String {
    guard case .string(let text)? = value else { throw MappingProblem("\(place) must be a string") }
    return text
  }

  func bool(_ value: JSONValue?, _ place: String, default fallback: Bool) throws(MappingProblem) -> Bool {
    guard let value else { return fallback }
    guard case .bool(let flag) = value else { throw MappingProblem("\(place) must be true or false") }
    return flag
  }

  func strings(_ value: JSONValue?, _ place: String) throws(MappingProblem) -> [String] {
    guard let value else { return [] }
    guard case .array(let items) = value else { throw MappingProblem("\(place) must be an array of strings") }
    var result: [String] = []
    for (index, item) in items.enumerated() { result.append(try string(item, "\(place)[\(index)]")) }
    return result
  }

  func mapping(_ json: JSONValue) throws(MappingProblem) -> ImportMapping {
    let root = try object(json, "", allowed: ["name", "description", "records", "root", "roots", "entities", "join"])
    let name = try string(root["name"], "name")
    let records = KeyPath(
      try root["records"].map { value throws(MappingProblem) in try string(value, "records") } ?? "")
    if let value = root["roots"], value.object == nil { throw MappingProblem("roots must be an object") }
    guard case .array(let list)? = root["entities"] else { throw MappingProblem("entities must be an array") }
    var entities: [EntityMapping] = []
    for (index, item) in list.enumerated() { entities.append(try entity(item, "entities[\(index)]")) }
    let names = Set(entities.map(\.entity.name))
    for mapping in entities {
      for relationship in mapping.entity.relationships where !names.contains(relationship.destination) {
        throw MappingProblem(
          "entity \(mapping.entity.name): relationship \(relationship.name) goes to \(relationship.destination), which the mapping does not declare"
        )
      }
    }
    // Destinations get placeholder rows (identity only) for references that arrive before their object.
    for mapping in entities {
      for relationship in mapping.entity.relationships {
        guard let destination = entities.first(where: { $0.entity.name == relationship.destination }) else { continue }
        guard destination.entity.identity.count == 1 else {
          throw MappingProblem(
            "entity \(mapping.entity.name): relationship \(relationship.name) goes to \(destination.entity.name), whose "
              + "identity is composite; a reference holds one identifier")
        }
        for attribute in destination.entity.attributes
        where !destination.entity.identity.contains(attribute.name) && !attribute.isOptional
          && attribute.defaultValue == nil
        {
          throw MappingProblem(
            "entity \(destination.entity.name): attribute \(attribute.name) must be optional, because references "
              + "to \(destination.entity.name) can arrive before the object (a placeholder row is created)")
        }
      }
    }
    func readJoin(_ value: JSONValue, _ place: String) throws(MappingProblem) -> JoinMapping {
      let fields = try object(value, place, allowed: ["entity", "relationship", "owner", "target"])
      let join = JoinMapping(
        entity: try string(fields["entity"], "\(place).entity"),
        relationship: try string(fields["relationship"], "\(place).relationship"),
        owner: KeyPath(try string(fields["owner"], "\(place).owner")),
        target: KeyPath(try string(fields["target"], "\(place).target")))
      guard let owner = entities.first(where: { $0.entity.name == join.entity }),
        owner.entity.relationship(join.relationship)?.kind == .toMany
      else {
        throw MappingProblem("\(place): \(join.entity)'s to-many relationship \(join.relationship) is not declared")
      }
      return join
    }
    var join: JoinMapping?
    if let value = root["join"] { join = try readJoin(value, "join") }
    var roots: [String: MappingRoot] = [:]
    for (rootName, value) in root["roots"]?.object ?? [:] {
      switch value {
      case .string(let entity):
        guard names.contains(entity) else { throw MappingProblem("roots.\(rootName): no entity \"\(entity)\"") }
        roots[rootName] = .entity(entity)
      case .object(let fields):
        guard let spec = fields["join"], fields.count == 1 else {
          throw MappingProblem("roots.\(rootName) must be an entity name or {\"join\": {…}}")
        }
        roots[rootName] = .join(try readJoin(spec, "roots.\(rootName).join"))
      default: throw MappingProblem("roots.\(rootName) must be an entity name or {\"join\": {…}}")
      }
    }
    let rootEntity: String
    if let join {
      rootEntity = join.entity
    } else if let value = root["root"] {
      rootEntity = try string(value, "root")
    } else if let first = roots.keys.sorted().first, !roots.isEmpty {
      // Several roots and none chosen yet: callers select one (selecting(root:)).
      switch roots[first] {
      case .entity(let entity): rootEntity = entity
      case .join(let spec): rootEntity = spec.entity
      case nil: rootEntity = ""
      }
    } else {
      throw MappingProblem("root is missing (or give roots)")
    }
    guard names.contains(rootEntity) else { throw MappingProblem("root \"\(rootEntity)\" is not among the entities") }
    var mapping = ImportMapping(name: name, records: records, rootEntity: rootEntity, entities: entities, join: join)
    mapping.roots = roots
    return mapping

  }

  func entity(_ json: JSONValue, _ place: String) throws(MappingProblem) -> EntityMapping {
    let fields = try object(
      json, place,
      allowed: [
        "entity", "identity", "attributes", "relationships", "indexes", "skip", "fullRepresentation", "onInvalidValue",
        "set", "key",
      ])
    let name = try string(fields["entity"], "\(place).entity")
    let builtIn: EntityDescription? = name == EntityDescription.article.name ? .article : nil
    var attributes: [Attribute] = []
    var attributeMappings: [String: AttributeMapping] = [:]
    if let value = fields["attributes"], value.object == nil {
      throw MappingProblem("\(place).attributes must be an object")
    }
    if let value = fields["relationships"], value.object == nil {
      throw MappingProblem("\(place).relationships must be an object")
    }
    for (attributeName, spec) in (fields["attributes"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
      let here = "\(place).attributes.\(attributeName)"
      let spec = try object(
        spec, here, allowed: ["type", "optional", "default", "from", "transforms", "unixTime", "assumeOffset"])
      if let builtIn, let existing = builtIn.attribute(attributeName) {
        guard !existing.isLocalOnly else {
          throw MappingProblem(
            "\(here): \(attributeName) of the built-in \(name) entity is local-only; an import never writes it")
        }
      } else if builtIn != nil, spec["type"] == nil {
        throw MappingProblem(
          "\(here): the built-in \(name) entity has no attribute \(attributeName); to extend it, give its \"type\"")
      } else {
        let typeName = try string(spec["type"], "\(here).type")
        guard let type = AttributeType(rawValue: typeName) else {
          throw MappingProblem(
            "\(here).type \"\(typeName)\" is not one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", "))"
          )
        }
        var defaultValue: DatabaseValue?
        if let value = spec["default"] {
          defaultValue = try ValueConverter.literal(value, type: type, place: "\(here).default")
        }
        attributes.append(
          Attribute(
            attributeName, type, optional: try bool(spec["optional"], "\(here).optional", default: true),
            default: defaultValue))
      }
      var mapping = AttributeMapping()
      if let from = spec["from"] { mapping.keyPath = KeyPath(try string(from, "\(here).from")) }
      for (index, name) in try strings(spec["transforms"], "\(here).transforms").enumerated() {
        guard let transform = ValueTransform(rawValue: name) else {
          throw MappingProblem(
            "\(here).transforms[\(index)] \"\(name)\" is not one of trim, emptyIsNull, decodeHTMLEntities, lowercase")
        }
        mapping.transforms.append(transform)
      }
      if let unix = spec["unixTime"] {
        guard let value = UnixTime(rawValue: try string(unix, "\(here).unixTime")) else {
          throw MappingProblem("\(here).unixTime must be \"seconds\" or \"milliseconds\"")
        }
        mapping.unixTime = value
      }
      if let offset = spec["assumeOffset"] {
        let text = try string(offset, "\(here).assumeOffset")
        guard let seconds = Self.offsetSeconds(text) else {
          throw MappingProblem("\(here).assumeOffset \"\(text)\" must be Z or ±HH:MM")
        }
        mapping.assumedOffset = seconds
      }
      attributeMappings[attributeName] = mapping
    }
    var relationships: [Relationship] = []
    var relationshipMappings: [String: RelationshipMapping] = [:]
    for (relationshipName, spec) in (fields["relationships"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
      let here = "\(place).relationships.\(relationshipName)"
      let spec = try object(spec, here, allowed: ["to", "kind", "ordered", "from", "mode"])
      let kindName = try string(spec["kind"], "\(here).kind")
      guard let kind = Relationship.Kind(rawValue: kindName) else {
        throw MappingProblem("\(here).kind must be \"toOne\" or \"toMany\"")
      }
      relationships.append(
        Relationship(
          relationshipName, to: try string(spec["to"], "\(here).to"), kind,
          ordered: try bool(spec["ordered"], "\(here).ordered", default: false)))
      var mapping = RelationshipMapping()
      if let from = spec["from"] { mapping.keyPath = KeyPath(try string(from, "\(here).from")) }
      if let mode = spec["mode"] {
        guard let value = ToManyMode(rawValue: try string(mode, "\(here).mode")) else {
          throw MappingProblem("\(here).mode must be \"replace\" or \"add\"")
        }
        mapping.mode = value
      }
      relationshipMappings[relationshipName] = mapping
    }
    for key in ["indexes", "skip"] {
      if let value = fields[key], case .array = value {
      } else if fields[key] != nil {
        throw MappingProblem("\(place).\(key) must be an array")
      }
    }
    if let value = fields["set"], value.object == nil { throw MappingProblem("\(place).set must be an object") }
    var indexes: [Index] = []
    if case .array(let list)? = fields["indexes"] {
      for (index, item) in list.enumerated() {
        let here = "\(place).indexes[\(index)]"
        let spec = try object(item, here, allowed: ["name", "on", "unique"])
        indexes.append(
          Index(
            try string(spec["name"], "\(here).name"), on: try strings(spec["on"], "\(here).on"),
            unique: try bool(spec["unique"], "\(here).unique", default: false)))
      }
    }
    var skip: [SkipRule] = []
    if case .array(let list)? = fields["skip"] {
      for (index, item) in list.enumerated() {
        let here = "\(place).skip[\(index)]"
        let spec = try object(item, here, allowed: ["keyPath", "equals"])
        guard let value = spec["equals"] else { throw MappingProblem("\(here).equals is missing") }
        skip.append(SkipRule(keyPath: KeyPath(try string(spec["keyPath"], "\(here).keyPath")), equals: value))
      }
    }
    var constants: [String: Constant] = [:]
    for (key, value) in fields["set"]?.object ?? [:] {
      switch value {
      case .string("$importTime"): constants[key] = .importTime
      case .string("$source"): constants[key] = .source
      default: constants[key] = .value(value)
      }
    }
    let entity: EntityDescription
    var articleKey: ArticleKeyRule?
    if let builtIn {
      // The built-in article, extended with the mapping's own attributes, relationships and indexes.
      entity = builtIn.extended(
        with: EntityDescription(
          name: name, identity: builtIn.identity, attributes: attributes, relationships: relationships,
          indexes: indexes))
      if let problem = entity.validationProblem() { throw MappingProblem("\(place): \(problem)") }
      if let value = fields["key"] {
        let spec = try object(value, "\(place).key", allowed: ["link", "id", "scope"])
        var rule = ArticleKeyRule()
        if let link = spec["link"] { rule.link = KeyPath(try string(link, "\(place).key.link")) }
        if let id = spec["id"] { rule.id = KeyPath(try string(id, "\(place).key.id")) }
        if let scope = spec["scope"] {
          let text = try string(scope, "\(place).key.scope")
          rule.scope = text == "$source" ? nil : text
        }
        guard rule.link != nil || rule.id != nil else {
          throw MappingProblem("\(place).key needs \"link\" or \"id\" (key paths into each record)")
        }
        articleKey = rule
      }
    } else if fields["key"] != nil {
      throw MappingProblem("\(place).key: only the built-in article entity derives its key; use \"identity\"")
    } else {
      let identity = try strings(fields["identity"], "\(place).identity")
      entity = EntityDescription(
        name: name, identity: identity, attributes: attributes, relationships: relationships, indexes: indexes)
      if let problem = entity.validationProblem() { throw MappingProblem("\(place): \(problem)") }
    }
    var invalid = InvalidValuePolicy.skipRecord
    if let value = fields["onInvalidValue"] {
      guard let policy = InvalidValuePolicy(rawValue: try string(value, "\(place).onInvalidValue")) else {
        throw MappingProblem("\(place).onInvalidValue must be \"skipRecord\" or \"keepOldValue\"")
      }
      invalid = policy
    }
    for key in constants.keys.sorted() {
      guard entity.isColumn(key) else { throw MappingProblem("\(place).set.\(key): \(name) has no attribute \(key)") }
      if entity.attribute(key)?.isLocalOnly == true {
        throw MappingProblem("\(place).set.\(key): \(key) is local-only; an import never writes it")
      }
    }
    return EntityMapping(
      entity: entity, attributes: attributeMappings, relationships: relationshipMappings, skip: skip,
      fullRepresentation: try bool(fields["fullRepresentation"], "\(place).fullRepresentation", default: false),
      onInvalidValue: invalid, constants: constants, articleKey: articleKey)
  }

  /// `Z`, `+02:00`, `-0530` → seconds east of UTC.
  static func offsetSeconds(_ text: String) -> Int? {
    if text == "Z" || text == "z" { return 0 }
    let digits = text.dropFirst().filter { $0 != ":" }
    guard let sign = text.first, sign == "+" || sign == "-", digits.count == 4, let hours = Int(digits.prefix(2)),
      let minutes = Int(digits.suffix(2)), hours <= 23, minutes <= 59
    else { return nil }
    return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
  }
}
