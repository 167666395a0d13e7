import Foundation
import OfflineNewsModel
import OfflineNewsStorage

extension ImportMapping {
  /// Reads a mapping file (the format is documented in `docs/MAPPING.md`).
  ///
  /// - Throws: ``ImportError/invalidMapping(_:)`` naming the file, the key at fault and what to write instead:
  ///   unknown keys, wrong types, unknown attribute types, relationships to entities the mapping does not declare.
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
      var reader = MappingReader()
      return try reader.mapping(json)
    } catch {
      throw .invalidMapping("\(url.path): \(error.message)")
    }
  }

  /// Parses a mapping from its JSON.
  ///
  /// - Throws: ``ImportError/invalidMapping(_:)`` naming the key at fault and what to write instead.
  package static func parse(_ json: JSONValue, name: String = "mapping") throws(ImportError) -> ImportMapping {
    do {
      var reader = MappingReader()
      return try reader.mapping(json)
    } catch {
      throw .invalidMapping(error.message)
    }
  }

  /// The sync-deletion scope `ATTRIBUTE=VALUE` (`feed=tech`) for this mapping's root entities: the rows whose
  /// attribute equals the value, converted to the attribute's type as a record's value would be.
  ///
  /// - Throws: ``ImportError/invalidMapping(_:)`` when the text is not `ATTRIBUTE=VALUE`, when a root entity has
  ///   no such attribute, or when the value does not convert to its type.
  package func deletionScope(_ text: String) throws(ImportError) -> MissingRowsScope {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
      throw .invalidMapping("the scope \"\(text)\" must be ATTRIBUTE=VALUE, e.g. feed=tech")
    }
    let name = String(text[..<equals])
    let value = String(text[text.index(after: equals)...])
    var stored: DatabaseValue?
    for entityName in rootEntities {
      guard let attribute = entity(entityName)?.entity.attribute(name) else {
        let known = entity(entityName)?.entity.attributes.map(\.name).joined(separator: ", ") ?? ""
        throw .invalidMapping(
          "\(entityName) has no attribute \"\(name)\" to scope deletion by (its attributes: \(known))")
      }
      switch ValueConverter.convert(.string(value), to: Attribute(name, attribute.type), options: ConversionOptions()) {
      case .success(let converted):
        if let stored, stored != converted.value {
          throw .invalidMapping("\(name) has different types in the root entities; scope by a text attribute")
        }
        stored = converted.value
      case .failure(let problem):
        throw .invalidMapping("\(entityName).\(name)=\(value): \(problem.reason)")
      }
    }
    return .matching(.compare(name, .equal, stored ?? .text(value)))
  }
}

struct MappingProblem: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

/// Reads mapping JSON strictly: every key known, every value of the right type, every error naming its place and
/// what to write there instead.
struct MappingReader {
  static let topKeys: Set<String> = [
    "name", "description", "records", "record", "recordsAreIdentifiers", "root", "roots", "entityBy", "entities",
    "join", "assumeOffset",
  ]
  static let entityKeys: Set<String> = [
    "entity", "identity", "owned", "attributes", "relationships", "indexes", "skip", "fullRepresentation",
    "onInvalidValue", "set", "key",
  ]
  static let attributeKeys: Set<String> = [
    "type", "optional", "default", "from", "transforms", "unixTime", "assumeOffset", "format", "timeZone", "baseURL",
  ]
  static let relationshipKeys: Set<String> = ["to", "kind", "ordered", "from", "mode", "deleteOrphans"]

  /// The mapping-level `assumeOffset`, read before the entities (a `format` without a zone may rely on it).
  var mappingOffset: Int?

  // MARK: - Typed members

  func object(_ value: JSONValue?, _ place: String, allowed: Set<String>, example: String) throws(MappingProblem)
    -> [String: JSONValue]
  {
    guard case .object(let fields)? = value else {
      throw MappingProblem("\(place.isEmpty ? "the mapping" : place) must be an object: write \(example)")
    }
    for key in fields.keys.sorted() where !allowed.contains(key) {
      let here = place.isEmpty ? key : "\(place).\(key)"
      let suggestion = Self.nearest(key, in: allowed).map { "did you mean \"\($0)\"? " } ?? ""
      throw MappingProblem(
        "unknown key \"\(here)\": \(suggestion)(known here: \(allowed.sorted().joined(separator: ", ")))")
    }
    return fields
  }

  func string(_ value: JSONValue?, _ place: String, example: String) throws(MappingProblem) -> String {
    guard case .string(let text)? = value else {
      let found = value.map { " (found \(ValueConverter.kind($0)))" } ?? " (it is missing)"
      throw MappingProblem("\(place) must be a string\(found): write \(example)")
    }
    return text
  }

  func bool(_ value: JSONValue?, _ place: String, default fallback: Bool) throws(MappingProblem) -> Bool {
    guard let value else { return fallback }
    guard case .bool(let flag) = value else {
      throw MappingProblem("\(place) must be true or false, found \(value): write \"\(Self.last(place))\": true")
    }
    return flag
  }

  func strings(_ value: JSONValue?, _ place: String, example: String) throws(MappingProblem) -> [String] {
    guard let value else { return [] }
    guard case .array(let items) = value else {
      throw MappingProblem(
        "\(place) must be an array of strings, found \(ValueConverter.kind(value)): write \(example)")
    }
    var result: [String] = []
    for (index, item) in items.enumerated() {
      result.append(try string(item, "\(place)[\(index)]", example: example))
    }
    return result
  }

  /// A key path, or a list of key paths tried in order: `"from": "meta.published"`, `"from": ["UserId", "User"]`.
  func keyPaths(_ value: JSONValue?, _ place: String) throws(MappingProblem) -> [JSONPath] {
    let example = "\"from\": \"meta.published\" or \"from\": [\"UserId\", \"User\"]"
    switch value {
    case nil: return []
    case .string(let text)?: return [JSONPath(text)]
    case .array(let items)?:
      guard !items.isEmpty else { throw MappingProblem("\(place) is an empty list: write \(example), or leave it out") }
      var paths: [JSONPath] = []
      for (index, item) in items.enumerated() {
        paths.append(JSONPath(try string(item, "\(place)[\(index)]", example: example)))
      }
      return paths
    case let other?:
      throw MappingProblem(
        "\(place) must be a key path or a list of them, found \(ValueConverter.kind(other)): write \(example)")
    }
  }

  // MARK: - The mapping

  mutating func mapping(_ json: JSONValue) throws(MappingProblem) -> ImportMapping {
    let root = try object(
      json, "", allowed: Self.topKeys,
      example: #"{"name": "items", "records": "items", "root": "item", "entities": [{"entity": "item", …}]}"#)
    let name = try string(root["name"], "name", example: #""name": "hackernews""#)
    if let value = root["assumeOffset"] {
      mappingOffset = try offset(value, "assumeOffset")
    }
    if root["records"] != nil, root["record"] != nil {
      throw MappingProblem(
        "records and record are both given: write \"records\" for an array of records, or \"record\" for one object")
    }
    var shape = RecordShape.objects
    var records = JSONPath(
      try root["records"].map { value throws(MappingProblem) in
        try string(value, "records", example: #""records": "items" (or "" for a top-level array)"#)
      } ?? "")
    if let value = root["record"] {
      records = JSONPath(try string(value, "record", example: #""record": "feed" (or "" for the whole document)"#))
      shape = .single
    }
    if try bool(root["recordsAreIdentifiers"], "recordsAreIdentifiers", default: false) {
      guard shape == .objects else {
        throw MappingProblem(
          "recordsAreIdentifiers needs an array of identifiers: write \"records\": \"…\" instead of \"record\"")
      }
      shape = .identifiers
    }
    if let value = root["roots"], value.object == nil {
      throw MappingProblem(#"roots must be an object: write "roots": {"Article": "parse_article", …}"#)
    }
    guard case .array(let list)? = root["entities"] else {
      throw MappingProblem(
        #"entities must be an array of entity mappings: write "entities": [{"entity": "item", "identity": ["id"], "attributes": {…}}]"#
      )
    }
    var entities: [EntityMapping] = []
    for (index, item) in list.enumerated() { entities.append(try entity(item, "entities[\(index)]")) }
    let names = Set(entities.map(\.entity.name))
    try checkRelationships(entities, names)

    func readJoin(_ value: JSONValue, _ place: String) throws(MappingProblem) -> JoinMapping {
      let example = #"{"entity": "parse_article", "relationship": "tags", "owner": "owningId", "target": "relatedId"}"#
      let fields = try object(value, place, allowed: ["entity", "relationship", "owner", "target"], example: example)
      let join = JoinMapping(
        entity: try string(fields["entity"], "\(place).entity", example: #""entity": "parse_article""#),
        relationship: try string(fields["relationship"], "\(place).relationship", example: #""relationship": "tags""#),
        owner: JSONPath(try string(fields["owner"], "\(place).owner", example: #""owner": "owningId""#)),
        target: JSONPath(try string(fields["target"], "\(place).target", example: #""target": "relatedId""#)))
      guard let owner = entities.first(where: { $0.entity.name == join.entity }),
        owner.entity.relationship(join.relationship)?.kind == .toMany
      else {
        throw MappingProblem(
          "\(place): \(join.entity)'s to-many relationship \(join.relationship) is not declared: add "
            + "\"relationships\": {\"\(join.relationship)\": {\"to\": \"…\", \"kind\": \"toMany\"}} to entity \(join.entity)"
        )
      }
      if let destination = owner.entity.relationship(join.relationship)?.destination,
        entities.first(where: { $0.entity.name == destination })?.isOwned == true
      {
        throw MappingProblem("\(place): \(destination) is owned; a join links rows that have identities of their own")
      }
      return join
    }
    var join: JoinMapping?
    if let value = root["join"] { join = try readJoin(value, "join") }
    var roots: [String: MappingRoot] = [:]
    for (rootName, value) in (root["roots"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
      switch value {
      case .string(let entity):
        guard names.contains(entity) else {
          throw MappingProblem(
            "roots.\(rootName): no entity \"\(entity)\": write one of \(names.sorted().joined(separator: ", "))")
        }
        roots[rootName] = .entity(entity)
      case .object(let fields):
        guard let spec = fields["join"], fields.count == 1 else {
          throw MappingProblem(
            "roots.\(rootName) must be an entity name or {\"join\": {…}}: write \"\(rootName)\": \"entity_name\"")
        }
        roots[rootName] = .join(try readJoin(spec, "roots.\(rootName).join"))
      default:
        throw MappingProblem(
          "roots.\(rootName) must be an entity name or {\"join\": {…}}: write \"\(rootName)\": \"entity_name\"")
      }
    }
    var entityBy: EntitySelector?
    if let value = root["entityBy"] {
      guard root["root"] == nil, root["roots"] == nil, join == nil else {
        throw MappingProblem(
          "entityBy chooses each record's entity, so root, roots and join cannot be given with it: "
            + "write the default entity as \"entityBy\": {…, \"default\": \"entity\"}")
      }
      entityBy = try selector(value, names: names)
    }
    let rootEntity: String
    if let join {
      rootEntity = join.entity
    } else if let entityBy {
      rootEntity = entityBy.fallback ?? entityBy.map.values.sorted().first ?? ""
    } else if let value = root["root"] {
      rootEntity = try string(value, "root", example: #""root": "item" (the entity each record becomes)"#)
    } else if let first = roots.keys.sorted().first {
      // Several roots and none chosen yet: callers select one (selecting(root:)).
      switch roots[first] {
      case .entity(let entity): rootEntity = entity
      case .join(let spec): rootEntity = spec.entity
      case nil: rootEntity = ""
      }
    } else {
      throw MappingProblem(
        #"root is missing: write "root": "item" (the entity each record becomes), or "roots", or "entityBy""#)
    }
    guard names.contains(rootEntity) else {
      throw MappingProblem(
        "root \"\(rootEntity)\" is not among the entities (\(names.sorted().joined(separator: ", "))): "
          + "write one of them, or add an entity \"\(rootEntity)\"")
    }
    var mapping = ImportMapping(name: name, records: records, rootEntity: rootEntity, entities: entities, join: join)
    mapping.roots = roots
    mapping.recordShape = shape
    mapping.entityBy = entityBy
    mapping.assumedOffset = mappingOffset
    try checkRoots(mapping)
    return mapping
  }

  func selector(_ value: JSONValue, names: Set<String>) throws(MappingProblem) -> EntitySelector {
    let example = #"{"keyPath": "type", "map": {"story": "hn_story", "comment": "hn_comment"}}"#
    let fields = try object(value, "entityBy", allowed: ["keyPath", "map", "default"], example: example)
    let keyPath = JSONPath(try string(fields["keyPath"], "entityBy.keyPath", example: #""keyPath": "type""#))
    guard case .object(let pairs)? = fields["map"], !pairs.isEmpty else {
      throw MappingProblem("entityBy.map must be an object of value → entity: write \"map\": {\"story\": \"hn_story\"}")
    }
    var map: [String: String] = [:]
    for (key, entity) in pairs.sorted(by: { $0.key < $1.key }) {
      let target = try string(entity, "entityBy.map.\(key)", example: #""story": "hn_story""#)
      guard names.contains(target) else {
        throw MappingProblem(
          "entityBy.map.\(key): no entity \"\(target)\": write one of \(names.sorted().joined(separator: ", "))")
      }
      map[key] = target
    }
    var fallback: String?
    if let value = fields["default"] {
      let target = try string(value, "entityBy.default", example: #""default": "hn_item""#)
      guard names.contains(target) else {
        throw MappingProblem(
          "entityBy.default: no entity \"\(target)\": write one of \(names.sorted().joined(separator: ", "))")
      }
      fallback = target
    }
    return EntitySelector(keyPath: keyPath, map: map, fallback: fallback)
  }

  /// Relationship destinations: declared, single identity (a reference holds one identifier), placeholders
  /// possible (every other attribute optional) unless owned; owned entities reached through to-many only.
  func checkRelationships(_ entities: [EntityMapping], _ names: Set<String>) throws(MappingProblem) {
    for mapping in entities {
      for relationship in mapping.entity.relationships where !names.contains(relationship.destination) {
        throw MappingProblem(
          "entity \(mapping.entity.name): relationship \(relationship.name) goes to \(relationship.destination), "
            + "which the mapping does not declare: add {\"entity\": \"\(relationship.destination)\", …} to entities")
      }
    }
    for mapping in entities {
      for relationship in mapping.entity.relationships {
        guard let destination = entities.first(where: { $0.entity.name == relationship.destination }) else { continue }
        if destination.isOwned {
          guard relationship.kind == .toMany else {
            throw MappingProblem(
              "entity \(mapping.entity.name): relationship \(relationship.name) is to-one, but \(destination.entity.name) "
                + "is owned (value rows in a list): write \"kind\": \"toMany\", or map the object as a json attribute")
          }
          if mapping.relationships[relationship.name]?.mode == .add {
            throw MappingProblem(
              "entity \(mapping.entity.name): relationship \(relationship.name) goes to the owned \(destination.entity.name), "
                + "whose rows are replaced with the parent's list: remove \"mode\": \"add\"")
          }
          continue
        }
        guard destination.entity.identity.count == 1 else {
          throw MappingProblem(
            "entity \(mapping.entity.name): relationship \(relationship.name) goes to \(destination.entity.name), whose "
              + "identity is composite; a reference holds one identifier: give \(destination.entity.name) a "
              + "single-attribute identity, or map the value as a json attribute")
        }
        for attribute in destination.entity.attributes
        where !destination.entity.identity.contains(attribute.name) && !attribute.isOptional
          && attribute.defaultValue == nil
        {
          throw MappingProblem(
            "entity \(destination.entity.name): attribute \(attribute.name) must be optional, because references "
              + "to \(destination.entity.name) can arrive before the object (a placeholder row is created): "
              + "remove \"optional\": false, or give it a \"default\"")
        }
      }
    }
    for mapping in entities where mapping.isOwned {
      let reached = entities.contains { owner in
        owner.entity.relationships.contains { $0.destination == mapping.entity.name }
      }
      guard reached else {
        throw MappingProblem(
          "entity \(mapping.entity.name) is owned, but no relationship goes to it: add a toMany relationship "
            + "\"to\": \"\(mapping.entity.name)\" to its parent, or remove \"owned\"")
      }
    }
  }

  /// Roots are entities with identities of their own; an identifiers root has one identifier per record.
  func checkRoots(_ mapping: ImportMapping) throws(MappingProblem) {
    var rootNames = Set(mapping.rootEntities)
    for root in mapping.roots.values {
      if case .entity(let name) = root { rootNames.insert(name) }
    }
    for name in rootNames.sorted() where mapping.entity(name)?.isOwned == true {
      throw MappingProblem(
        "entity \(name) is owned (rows of its parent, with no identity of their own), so it cannot be a root: "
          + "import its parent, or remove \"owned\"")
    }
    if mapping.recordShape == .identifiers {
      guard mapping.join == nil, mapping.entityBy == nil, let root = mapping.entity(mapping.rootEntity) else {
        throw MappingProblem("recordsAreIdentifiers needs a single \"root\" entity (not join or entityBy)")
      }
      let read = root.entity.identity.filter { root.constants[$0] == nil }
      guard read.count == 1 else {
        throw MappingProblem(
          "recordsAreIdentifiers: each record is one identifier, but \(root.entity.name)'s identity reads "
            + "\(read.count) attributes (\(read.joined(separator: ", "))): give it one identity attribute, "
            + "the others set with \"set\"")
      }
    }
  }

  // MARK: - An entity

  func entity(_ json: JSONValue, _ place: String) throws(MappingProblem) -> EntityMapping {
    let fields = try object(
      json, place, allowed: Self.entityKeys,
      example: #"{"entity": "item", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}"#)
    let name = try string(fields["entity"], "\(place).entity", example: #""entity": "item" (the table's name)"#)
    let builtIn: EntityDescription? = name == EntityDescription.article.name ? .article : nil
    let owned = try bool(fields["owned"], "\(place).owned", default: false)
    if owned, builtIn != nil {
      throw MappingProblem("\(place): the built-in article has its own identity (url): remove \"owned\"")
    }
    if owned, fields["identity"] != nil {
      throw MappingProblem(
        "\(place): an owned entity has no identity of its own (its rows are identified by their parent and position): "
          + "remove \"identity\", or remove \"owned\"")
    }
    for key in ["attributes", "relationships", "set"] {
      if let value = fields[key], value.object == nil {
        throw MappingProblem("\(place).\(key) must be an object: write \"\(key)\": {\"name\": …}")
      }
    }
    for key in ["indexes", "skip"] {
      if let value = fields[key], case .array = value {
      } else if fields[key] != nil {
        throw MappingProblem(
          "\(place).\(key) must be an array: write "
            + (key == "skip"
              ? #""skip": [{"keyPath": "title", "equals": "[Removed]"}]"#
              : #""indexes": [{"name": "item_by_time", "on": ["time"]}]"#))
      }
    }
    var attributes: [Attribute] = []
    var attributeMappings: [String: AttributeMapping] = [:]
    for (attributeName, spec) in (fields["attributes"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
      let here = "\(place).attributes.\(attributeName)"
      let spec = try object(spec, here, allowed: Self.attributeKeys, example: #"{"type": "text"}"#)
      let type: AttributeType
      if let builtIn, builtIn.attribute(attributeName) != nil || spec["type"] == nil {
        guard let existing = builtIn.attribute(attributeName), !existing.isLocalOnly else {
          let importable = builtIn.attributes.filter { !$0.isLocalOnly }.map(\.name).joined(separator: ", ")
          throw MappingProblem(
            "\(here): the built-in \(name) entity has no importable attribute \(attributeName) (its attributes: "
              + "\(importable)); read another key into one of them with \"from\", or extend \(name) with an "
              + "attribute of its own by giving its \"type\"")
        }
        for key in ["type", "optional", "default"] where spec[key] != nil {
          throw MappingProblem(
            "\(here).\(key): the built-in \(name)'s attributes have their types and rules already: remove \"\(key)\"")
        }
        type = existing.type
      } else {
        let typeName = try string(
          spec["type"], "\(here).type",
          example: "\"type\": one of \(AttributeType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        guard let known = AttributeType(rawValue: typeName) else {
          let suggestion = Self.nearest(typeName, in: Set(AttributeType.allCases.map(\.rawValue)))
          throw MappingProblem(
            "\(here).type \"\(typeName)\" is not a type: write "
              + (suggestion.map { "\"\($0)\"" }
                ?? "one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        type = known
        var defaultValue: DatabaseValue?
        if let value = spec["default"] {
          defaultValue = try ValueConverter.literal(value, type: type, place: "\(here).default")
        }
        attributes.append(
          Attribute(
            attributeName, type, optional: try bool(spec["optional"], "\(here).optional", default: true),
            default: defaultValue))
      }
      attributeMappings[attributeName] = try attributeMapping(
        spec, here, type: type, allowsBase: type == .url || (builtIn != nil && attributeName == "url"))
    }
    var relationships: [Relationship] = []
    var relationshipMappings: [String: RelationshipMapping] = [:]
    for (relationshipName, spec) in (fields["relationships"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
      let here = "\(place).relationships.\(relationshipName)"
      let spec = try object(
        spec, here, allowed: Self.relationshipKeys, example: #"{"to": "person", "kind": "toOne"}"#)
      let kindName = try string(spec["kind"], "\(here).kind", example: #""kind": "toOne" or "kind": "toMany""#)
      guard let kind = Relationship.Kind(rawValue: kindName) else {
        throw MappingProblem("\(here).kind \"\(kindName)\" is not a kind: write \"toOne\" or \"toMany\"")
      }
      relationships.append(
        Relationship(
          relationshipName, to: try string(spec["to"], "\(here).to", example: #""to": "person" (an entity)"#), kind,
          ordered: try bool(spec["ordered"], "\(here).ordered", default: false)))
      var mapping = RelationshipMapping()
      mapping.keyPaths = try keyPaths(spec["from"], "\(here).from")
      if let mode = spec["mode"] {
        let text = try string(mode, "\(here).mode", example: #""mode": "replace" or "mode": "add""#)
        guard let value = ToManyMode(rawValue: text) else {
          throw MappingProblem("\(here).mode \"\(text)\" is not a mode: write \"replace\" or \"add\"")
        }
        guard kind == .toMany else {
          throw MappingProblem("\(here).mode applies to toMany relationships: remove it, or write \"kind\": \"toMany\"")
        }
        mapping.mode = value
      }
      mapping.deleteOrphans = try bool(spec["deleteOrphans"], "\(here).deleteOrphans", default: false)
      if mapping.deleteOrphans, kind != .toMany || mapping.mode == .add {
        throw MappingProblem(
          "\(here).deleteOrphans deletes children that leave a replaced list: write \"kind\": \"toMany\" "
            + "(with \"mode\": \"replace\"), or remove it")
      }
      relationshipMappings[relationshipName] = mapping
    }
    var indexes: [EntityIndex] = []
    if case .array(let list)? = fields["indexes"] {
      for (index, item) in list.enumerated() {
        let here = "\(place).indexes[\(index)]"
        let spec = try object(
          item, here, allowed: ["name", "on", "unique"], example: #"{"name": "item_by_time", "on": ["time"]}"#)
        indexes.append(
          EntityIndex(
            try string(spec["name"], "\(here).name", example: #""name": "item_by_time""#),
            on: try strings(spec["on"], "\(here).on", example: #""on": ["time"]"#),
            unique: try bool(spec["unique"], "\(here).unique", default: false)))
      }
    }
    var skip: [SkipRule] = []
    if case .array(let list)? = fields["skip"] {
      for (index, item) in list.enumerated() {
        let here = "\(place).skip[\(index)]"
        let spec = try object(
          item, here, allowed: ["keyPath", "equals"], example: #"{"keyPath": "title", "equals": "[Removed]"}"#)
        guard let value = spec["equals"] else {
          throw MappingProblem("\(here).equals is missing: write \"equals\": the JSON value that marks the record")
        }
        skip.append(
          SkipRule(
            keyPath: JSONPath(try string(spec["keyPath"], "\(here).keyPath", example: #""keyPath": "title""#)),
            equals: value))
      }
    }
    var constants: [String: Constant] = [:]
    for (key, value) in fields["set"]?.object ?? [:] {
      switch value {
      case .string("$importTime"): constants[key] = .importTime
      case .string("$source"): constants[key] = .source
      case .string(let text) where text.hasPrefix("$document.") && text.count > "$document.".count:
        constants[key] = .document(JSONPath(String(text.dropFirst("$document.".count))))
      default: constants[key] = .value(value)
      }
    }
    let entity: EntityDescription
    var candidates: [String: [String]] = [:]
    var articleKey: ArticleKeyRule?
    if fields["key"] != nil, builtIn == nil {
      throw MappingProblem(
        "\(place).key: only the built-in article derives its key from a link or an id: for \(name) write "
          + "\"identity\": [\"id\"]")
    }
    if let builtIn {
      // The built-in article, extended with the mapping's own attributes, relationships and indexes.
      entity = builtIn.extended(
        with: EntityDescription(
          name: name, identity: builtIn.identity, attributes: attributes, relationships: relationships,
          indexes: indexes))
      if let problem = entity.validationProblem() {
        throw MappingProblem("\(place): \(problem): give the extension attributes names of their own")
      }
      if let value = fields["key"] {
        let example = #""key": {"link": "url", "id": "id", "scope": "$source"}"#
        let spec = try object(value, "\(place).key", allowed: ["link", "id", "scope", "page"], example: example)
        var rule = ArticleKeyRule()
        rule.link = try keyPaths(spec["link"], "\(place).key.link")
        rule.id = try keyPaths(spec["id"], "\(place).key.id")
        if case .array(let names)? = spec["scope"] {
          // Key paths into the document, or `$source`: the first http(s) URL found is the scope.
          let listExample = #""scope": ["home_page_url", "feed_url", "$source"]"#
          rule.scopeFrom = try names.enumerated().map { (index, name) throws(MappingProblem) -> BaseURLSource in
            let text = try string(name, "\(place).key.scope[\(index)]", example: listExample)
            return text == "$source" ? .source : .document(JSONPath(text))
          }
        } else if let scope = spec["scope"] {
          let text = try string(scope, "\(place).key.scope", example: example)
          rule.scope = text == "$source" ? nil : text
        }
        if let page = spec["page"] {
          let pageExample = #""page": "https://news.ycombinator.com/item?id={id}""#
          let text = try string(page, "\(place).key.page", example: pageExample)
          guard text.contains("{id}"), let url = URL(string: text.replacingOccurrences(of: "{id}", with: "1")),
            url.isWebURL
          else {
            throw MappingProblem(
              "\(place).key.page: \"\(text)\" is not an absolute http(s) URL with {id} in it: write \(pageExample)")
          }
          rule.page = text
        }
        guard !rule.link.isEmpty || !rule.id.isEmpty else {
          throw MappingProblem("\(place).key needs \"link\" or \"id\" (key paths into each record): write \(example)")
        }
        articleKey = rule
      }
      if let value = fields["identity"] {
        let (identity, alternatives) = try identitySpec(value, "\(place).identity")
        guard identity == builtIn.identity else {
          throw MappingProblem(
            "\(place).identity: the built-in \(name) is identified by \(builtIn.identity.joined(separator: ", ")): "
              + "remove \"identity\", or read the url from other keys with \"url\": {\"from\": [\"url\", \"id\"]}")
        }
        candidates = alternatives
      }
    } else if owned {
      attributes.insert(Attribute(EntityMapping.ownedKey, .text, optional: false), at: 0)
      entity = EntityDescription(
        name: name, identity: [EntityMapping.ownedKey], attributes: attributes, relationships: relationships,
        indexes: indexes)
    } else {
      guard let value = fields["identity"] else {
        throw MappingProblem(
          "\(place).identity is missing: write \"identity\": [\"id\"] (the attribute that identifies a record), "
            + "or \"owned\": true for value rows that belong to their parent")
      }
      let (identity, alternatives) = try identitySpec(value, "\(place).identity")
      for key in identity where !attributes.contains(where: { $0.name == key }) {
        throw MappingProblem(
          "\(place).identity \"\(key)\" is not an attribute of \(name): declare it, e.g. \"attributes\": "
            + "{\"\(key)\": {\"type\": \"text\"}}, or write one of \(attributes.map(\.name).joined(separator: ", "))")
      }
      candidates = alternatives
      entity = EntityDescription(
        name: name, identity: identity, attributes: attributes, relationships: relationships, indexes: indexes)
    }
    if builtIn == nil, let problem = entity.validationProblem() {
      throw MappingProblem(
        "\(place): \(problem): write names of letters, digits and _ (not starting with a digit or sqlite_), "
          + "each used once")
    }
    for (key, alternatives) in candidates.sorted(by: { $0.key < $1.key }) {
      for alternative in alternatives where entity.attribute(alternative) == nil || alternative == key {
        throw MappingProblem(
          "\(place).identity: the candidate \"\(alternative)\" for \(key) must be another attribute of \(name): "
            + "write one of \(entity.attributes.map(\.name).filter { $0 != key }.joined(separator: ", "))")
      }
      if constants[key] != nil {
        throw MappingProblem("\(place).identity: \(key) is set by \"set\", so it has no candidates: write \"\(key)\"")
      }
    }
    var invalid = InvalidValuePolicy.keepOldValue
    if let value = fields["onInvalidValue"] {
      let text = try string(value, "\(place).onInvalidValue", example: #""onInvalidValue": "keepOldValue""#)
      guard let policy = InvalidValuePolicy(rawValue: text) else {
        throw MappingProblem(
          "\(place).onInvalidValue \"\(text)\" is not a policy: write \"keepOldValue\" (the value alone is lost) "
            + "or \"skipRecord\" (the record is)")
      }
      invalid = policy
    }
    for key in constants.keys.sorted() {
      guard entity.isColumn(key) else {
        throw MappingProblem(
          "\(place).set.\(key): \(name) has no attribute \(key): declare it in \"attributes\", or remove it from \"set\""
        )
      }
      if entity.attribute(key)?.isLocalOnly == true {
        throw MappingProblem("\(place).set.\(key): \(key) is local-only; an import never writes it: remove it")
      }
    }
    return EntityMapping(
      entity: entity, attributes: attributeMappings, relationships: relationshipMappings, skip: skip,
      fullRepresentation: try bool(fields["fullRepresentation"], "\(place).fullRepresentation", default: false),
      onInvalidValue: invalid, constants: constants, identityCandidates: candidates, isOwned: owned,
      articleKey: articleKey)
  }

  /// `["id"]`, `["feed", "id"]` (composite), or with candidates: `[["id", "url"]]`, `["feed", ["id", "url"]]`.
  func identitySpec(_ value: JSONValue, _ place: String) throws(MappingProblem) -> ([String], [String: [String]]) {
    let example = #""identity": ["id"], or ["feed", "id"] (composite), or [["id", "url"]] (id, else url)"#
    guard case .array(let items) = value, !items.isEmpty else {
      throw MappingProblem("\(place) must be a non-empty array: write \(example)")
    }
    var identity: [String] = []
    var candidates: [String: [String]] = [:]
    for (index, item) in items.enumerated() {
      switch item {
      case .string(let name): identity.append(name)
      case .array(let names):
        let list = try strings(item, "\(place)[\(index)]", example: example)
        guard let first = list.first, names.count >= 2 else {
          throw MappingProblem(
            "\(place)[\(index)] lists candidates: it needs at least two attribute names, tried in order: write \(example)"
          )
        }
        identity.append(first)
        candidates[first] = Array(list.dropFirst())
      default:
        throw MappingProblem("\(place)[\(index)] must be an attribute name or a list of candidates: write \(example)")
      }
    }
    return (identity, candidates)
  }

  func attributeMapping(_ spec: [String: JSONValue], _ here: String, type: AttributeType, allowsBase: Bool)
    throws(MappingProblem) -> AttributeMapping
  {
    var mapping = AttributeMapping()
    mapping.keyPaths = try keyPaths(spec["from"], "\(here).from")
    let transformNames = ValueTransform.allCases.map(\.rawValue)
    for (index, name) in try strings(spec["transforms"], "\(here).transforms", example: #""transforms": ["trim"]"#)
      .enumerated()
    {
      guard let transform = ValueTransform(rawValue: name) else {
        let suggestion = Self.nearest(name, in: Set(transformNames)).map { "\"\($0)\"" }
        throw MappingProblem(
          "\(here).transforms[\(index)] \"\(name)\" is not a transform: write "
            + (suggestion ?? "one of \(transformNames.joined(separator: ", "))"))
      }
      mapping.transforms.append(transform)
    }
    for key in ["unixTime", "assumeOffset", "format", "timeZone"] where spec[key] != nil && type != .date {
      throw MappingProblem("\(here).\(key) applies to date attributes: remove it, or write \"type\": \"date\"")
    }
    if spec["baseURL"] != nil, !allowsBase {
      throw MappingProblem("\(here).baseURL applies to url attributes: remove it, or write \"type\": \"url\"")
    }
    if let unix = spec["unixTime"] {
      let units = UnixTime.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
      let text = try string(unix, "\(here).unixTime", example: "\"unixTime\": one of \(units)")
      guard let value = UnixTime(rawValue: text) else {
        throw MappingProblem("\(here).unixTime \"\(text)\" is not a unit: write one of \(units)")
      }
      mapping.unixTime = value
    }
    if let value = spec["assumeOffset"] {
      mapping.assumedOffset = try offset(value, "\(here).assumeOffset")
    }
    if let value = spec["format"] {
      let pattern = try string(value, "\(here).format", example: #""format": "M/d/yyyy H-mm-ss""#)
      let fields = Self.patternFields(pattern)
      guard fields.contains("y") || fields.contains("u"), fields.contains("M") || fields.contains("L"),
        fields.contains("d")
      else {
        throw MappingProblem(
          "\(here).format \"\(pattern)\" needs a year (yyyy), a month (M) and a day (d), in Unicode date pattern "
            + "letters (UTS #35): write e.g. \"M/d/yyyy H-mm-ss\"")
      }
      var zone: String?
      if let value = spec["timeZone"] {
        let name = try string(value, "\(here).timeZone", example: #""timeZone": "America/New_York""#)
        guard TimeZone(identifier: name) != nil else {
          throw MappingProblem(
            "\(here).timeZone \"\(name)\" is not a time zone: write an IANA name such as \"UTC\" or \"Europe/Berlin\"")
        }
        zone = name
      }
      let hasZoneField = !fields.isDisjoint(with: ["Z", "z", "X", "x", "O", "V", "v"])
      if !hasZoneField, zone == nil {
        let offset = mapping.assumedOffset ?? mappingOffset
        guard let offset else {
          throw MappingProblem(
            "\(here).format \"\(pattern)\" has no time zone field: add \"timeZone\": \"UTC\" (or an IANA name "
              + "such as \"America/New_York\"), or a zone field such as XXX to the pattern")
        }
        zone = TimeZone(secondsFromGMT: offset)?.identifier ?? "UTC"
        if offset == 0 { zone = "UTC" }
      }
      mapping.dateFormat = DateFormat(pattern: pattern, timeZone: zone)
    } else if spec["timeZone"] != nil {
      throw MappingProblem(
        "\(here).timeZone applies to a \"format\" pattern; for ISO 8601 text without an offset write "
          + "\"assumeOffset\": \"+02:00\"")
    }
    if let value = spec["baseURL"] {
      let example = #""baseURL": "home_page_url" or ["home_page_url", "feed_url", "$source"]"#
      let names: [String]
      switch value {
      case .string(let text): names = [text]
      case .array: names = try strings(value, "\(here).baseURL", example: example)
      default: throw MappingProblem("\(here).baseURL must be a key path or a list of them: write \(example)")
      }
      guard !names.isEmpty else { throw MappingProblem("\(here).baseURL is an empty list: write \(example)") }
      mapping.baseURL = names.map { $0 == "$source" ? .source : .document(JSONPath($0)) }
    }
    return mapping
  }

  /// `Z`, `+02:00`, `-0530` → seconds east of UTC.
  func offset(_ value: JSONValue, _ place: String) throws(MappingProblem) -> Int {
    let text = try string(value, place, example: #""assumeOffset": "Z" (UTC) or "+02:00""#)
    guard let seconds = Self.offsetSeconds(text) else {
      throw MappingProblem(
        "\(place) \"\(text)\" is not a UTC offset: write \"Z\" (UTC) or ±HH:MM such as \"+02:00\" "
          + "(for a named time zone with daylight saving, use a \"format\" with \"timeZone\")")
    }
    return seconds
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

  /// The field letters of a UTS #35 pattern, outside quoted literals.
  static func patternFields(_ pattern: String) -> Set<Character> {
    var fields: Set<Character> = []
    var quoted = false
    for character in pattern {
      if character == "'" {
        quoted.toggle()
      } else if !quoted, character.isASCII, character.isLetter {
        fields.insert(character)
      }
    }
    return fields
  }

  /// The last component of a place: `entities[0].owned` → `owned`.
  static func last(_ place: String) -> String {
    String(place.split(separator: ".").last ?? Substring(place))
  }

  /// The known key closest to `key` (a typo: at most a third of its letters off, a swap of two counting one), for
  /// "did you mean".
  static func nearest(_ key: String, in known: Set<String>) -> String? {
    // Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions.
    func distance(_ a: [Character], _ b: [Character]) -> Int {
      guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
      var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
      for i in 0...a.count { table[i][0] = i }
      for j in 0...b.count { table[0][j] = j }
      for i in 1...a.count {
        for j in 1...b.count {
          let cost = a[i - 1] == b[j - 1] ? 0 : 1
          table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
          if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
            table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
          }
        }
      }
      return table[a.count][b.count]
    }
    let lowered = Array(key.lowercased())
    let scored = known.map { ($0, distance(lowered, Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.1 < $1.1 || $0.1 == $1.1 && $0.0 < $1.0 }),
      best.1 <= max(1, key.count / 3)
    else { return nil }
    return best.0
  }
}
