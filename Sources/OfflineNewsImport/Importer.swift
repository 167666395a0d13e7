import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// The general JSON → store importer: a mapping turns any API's JSON into records with identity, upsert and
/// relationships, saved in one transaction, with a report of what happened to every record.
///
/// For example:
/// ```swift
/// let mapping = try ImportMapping.load(contentsOf: URL(fileURLWithPath: "Config/mappings/hackernews.json"))
/// let storage = try StorageContext(path: "news.sqlite", entities: mapping.entityDescriptions)
/// let report = try await Importer(mapping: mapping).run(data, into: storage, source: "topstories.json")
/// print(report.inserted, report.failed, report.errors.first as Any)
/// ```
///
/// Rules (see `docs/MAPPING.md`):
/// - Identity: `"42"` and `42` are the same key (normalized to the identity attribute's type). One identity map per
///   import: the same object nested in many places is one row; a root identity seen twice is one row, the later
///   record winning, and is reported.
/// - Missing vs null: a missing key leaves the stored value; `null` clears it; `[]` empties a to-many. With
///   `fullRepresentation`, missing means clear. Local-only attributes are never touched.
/// - Relationships: a nested object is imported with its entity's mapping; an identifier (text, number, a Parse
///   `Pointer`) references a row, creating a placeholder row when the object has not arrived yet, so that any import
///   order gives the same graph.
/// - A value that cannot be converted is reported with the record's identity and key path, and by the mapping's
///   policy either skips the record or keeps the stored value. Never stored as `nil`.
/// - One transaction per import; existing rows are looked up one query per entity per 500 records; unchanged rows
///   are not rewritten.
public struct Importer: Sendable {
  public let mapping: ImportMapping
  public let hooks: ImportHooks

  public init(mapping: ImportMapping, hooks: ImportHooks = ImportHooks()) {
    self.mapping = mapping
    self.hooks = hooks
  }

  /// Options of one import run.
  public struct Options: Sendable {
    /// Sync deletion: delete root rows matching this scope that the payload does not hold. `nil` (default): none.
    /// Never runs when the payload cannot be read (the import throws first).
    public var deleteMissingIn: FetchPredicate?
    /// When the import runs (`$importTime` constants).
    public var importTime: Timestamp
    /// Changes of entities outside the mapping saved in the same transaction as the import, all or nothing with it:
    /// for instance a sync engine's cursor and the deletion of the staged page just imported. Not counted in the
    /// report.
    public var additionalChanges: ChangeSet
    /// How the payload's built-in `article` records are recorded as a fetch; `nil`: as a fetch of the payload's
    /// `source`, whose whole answer they are, at ``importTime``.
    public var articleFetch: ArticleFetch?

    public init(
      deleteMissingIn: FetchPredicate? = nil, importTime: Timestamp = .now(),
      additionalChanges: ChangeSet = ChangeSet(),
      articleFetch: ArticleFetch? = nil
    ) {
      self.articleFetch = articleFetch
      self.deleteMissingIn = deleteMissingIn
      self.importTime = importTime
      self.additionalChanges = additionalChanges
    }
  }

  /// Parses `data`, maps it and saves it in one transaction.
  ///
  /// - Parameters:
  ///   - data: the JSON payload.
  ///   - storage: a storage context opened with the mapping's entities (``ImportMapping/entityDescriptions``).
  ///   - source: where the payload came from (a path or URL), for `$source` constants and messages.
  /// - Returns: the report.
  /// - Throws: ``ImportError`` when the payload is not valid JSON or does not match the mapping (nothing written);
  ///   ``StorageError`` when the save fails (rolled back); `CancellationError` when the task was cancelled (nothing
  ///   written).
  public func run(_ data: Data, into storage: StorageContext, source: String, options: Options = Options())
    async throws -> ImportReport
  {
    try await run(JSONValue.parse(data), into: storage, source: source, options: options)
  }

  /// Maps an already parsed payload and saves it in one transaction, as ``run(_:into:source:options:)-(Data,_,_,_)``.
  ///
  /// - Throws: as the form that takes `Data`.
  public func run(_ json: JSONValue, into storage: StorageContext, source: String, options: Options = Options())
    async throws -> ImportReport
  {
    try Task.checkCancellation()
    var (changes, report) = try makeChanges(json, source: source, options: options)
    changes.upserts += options.additionalChanges.upserts
    changes.deletes += options.additionalChanges.deletes
    changes.deleteMissing += options.additionalChanges.deleteMissing
    try Task.checkCancellation()
    var summaries = try await storage.save(changes)
    changes = ChangeSet()
    let mapped = Set(mapping.entities.map(\.entity.name))
    summaries = summaries.filter { mapped.contains($0.key) }
    for (entity, summary) in summaries {
      report.entities[entity] = .init(
        inserted: summary.inserted, updated: summary.updated, unchanged: summary.unchanged, deleted: summary.deleted)
    }
    for (entity, summary) in summaries {
      for rejection in summary.rejected {
        let place =
          report.recordPlaces[ImportReport.placeKey(entity, rejection.identity)] ?? "(\(entity) \(rejection.identity))"
        report.errors.append(
          RecordError(
            entity: entity, identity: rejection.identity.description, keyPath: place, reason: rejection.reason))
      }
    }
    let root = summaries[mapping.join?.entity ?? mapping.rootEntity] ?? SaveSummary()
    report.failed += root.rejected.count
    if mapping.join == nil {
      report.inserted = root.inserted
      report.updated = root.updated
      report.unchanged = root.unchanged
    } else {
      // A join's records are links: new ones are inserted, links already there unchanged.
      report.inserted = root.linksAdded
      report.unchanged = max(0, report.joinLinks - root.linksAdded)
    }
    report.deleted = root.deleted
    return report
  }

  /// Maps a parsed payload to a change set and the report's record-level part, without touching storage.
  ///
  /// - Throws: ``ImportError/doesNotMatchMapping(_:)`` when there is no array of records where the mapping says.
  public func makeChanges(_ json: JSONValue, source: String, options: Options = Options()) throws(ImportError)
    -> (ChangeSet, ImportReport)
  {
    guard let container = json[path: mapping.records] else {
      throw .doesNotMatchMapping("no \"\(mapping.records)\" in the payload")
    }
    guard case .array(let items) = container else {
      let place = mapping.records.components.isEmpty ? "the top level" : "\"\(mapping.records)\""
      throw .doesNotMatchMapping("\(place) is \(ValueConverter.kind(container)), not an array of records")
    }
    var state = ImportState(mapping: mapping, hooks: hooks, source: source, importTime: options.importTime)
    let base = mapping.records.components.isEmpty ? "" : mapping.records.description
    for (index, item) in items.enumerated() {
      let place = "\(base)[\(index)]"
      if let join = mapping.join {
        state.importJoin(item, join, place: place)
      } else {
        state.importRoot(item, place: place)
      }
    }
    var changes = ChangeSet(
      upserts: state.orderedRecords(), deletes: state.deletes,
      articleFetch: options.articleFetch ?? ArticleFetch(query: source, source: source, fetchedAt: options.importTime))
    if let scope = options.deleteMissingIn, mapping.join == nil {
      changes.deleteMissing.append(MissingRowsDeletion(entity: mapping.rootEntity, scope: scope, keep: state.rootSeen))
    }
    return (changes, state.report)
  }
}

/// The identity map and report of one import.
struct ImportState {
  let mapping: ImportMapping
  let hooks: ImportHooks
  let source: String
  let importTime: Timestamp
  var report = ImportReport()
  var records: [String: [Identity: Record]] = [:]
  var order: [(String, Identity)] = []
  var rootSeen: Set<Identity> = []
  var seenImported: Set<Identity> = []
  var deletes: [(entity: String, identity: Identity)] = []

  init(mapping: ImportMapping, hooks: ImportHooks, source: String, importTime: Timestamp) {
    self.mapping = mapping
    self.hooks = hooks
    self.source = source
    self.importTime = importTime
  }

  func orderedRecords() -> [Record] { order.compactMap { records[$0.0]?[$0.1] } }

  mutating func importRoot(_ item: JSONValue, place: String) {
    guard let entity = mapping.entity(mapping.rootEntity) else { return }
    guard case .object = item else {
      report.failed += 1
      report.errors.append(
        RecordError(
          entity: entity.entity.name, identity: nil, keyPath: place,
          reason: "expected an object, found \(ValueConverter.kind(item))"))
      return
    }
    let outcome = map(item, entity, place: place, root: true)
    // Every identity the payload holds, imported or not, is "in the payload" for sync deletion.
    if let identity = readableIdentity(item, entity) { rootSeen.insert(identity) }
    switch outcome {
    case .imported(let identity):
      report.recordPlaces[ImportReport.placeKey(entity.entity.name, identity)] = place
      if seenImported.insert(identity).inserted == false {
        report.duplicates += 1
        report.errors.append(
          RecordError(
            entity: entity.entity.name, identity: identity.description, keyPath: place,
            reason: "duplicate of an earlier record in this payload; one row, this later record wins"))
      }
    case .skipped: report.skipped += 1
    case .failed: report.failed += 1
    }
  }

  mutating func importJoin(_ item: JSONValue, _ join: JoinMapping, place: String) {
    guard let entity = mapping.entity(join.entity), let relationship = entity.entity.relationship(join.relationship),
      let ownerType = entity.entity.identity.first.flatMap(entity.entity.attribute)?.type,
      let destination = mapping.entity(relationship.destination),
      let targetType = destination.entity.identity.first.flatMap(destination.entity.attribute)?.type
    else { return }
    let ownerRaw = item[path: join.owner].flatMap { ValueConverter.identity($0, type: ownerType) }
    guard
      let ownerValue = join.entity == EntityDescription.article.name
        ? ownerRaw.flatMap({ articleKey(forID: $0, entity) }) : ownerRaw,
      let targetValue = item[path: join.target].flatMap({ ValueConverter.identity($0, type: targetType) })
    else {
      report.failed += 1
      report.errors.append(
        RecordError(
          entity: join.entity, identity: nil, keyPath: place,
          reason: "a join record needs \(join.owner) and \(join.target)"))
      return
    }
    let owner = Identity(ownerValue)
    add(
      Record(
        entity: join.entity, values: [entity.entity.identity[0]: ownerValue],
        toManyAdditions: [join.relationship: [targetValue]]), owner)
    placeholder(destination, targetValue)
    report.joinLinks += 1
  }

  /// The key of a built-in `article` record (``ArticleIdentity``) and the link as given: by the mapping's
  /// ``ArticleKeyRule``, else the canonical form of its `url`.
  func articleKey(_ item: JSONValue, _ mapping: EntityMapping) -> Result<
    (key: String, link: String?), ArticleKeyProblem
  > {
    let rule = mapping.articleKey ?? ArticleKeyRule(link: mapping.attributes["url"]?.keyPath ?? KeyPath("url"))
    func text(_ path: KeyPath?) -> String? {
      guard let path, let raw = item[path: path].flatMap(ValueConverter.unwrapParse) else { return nil }
      let value =
        mapping.articleKey == nil ? ValueConverter.apply(mapping.attributes["url"]?.transforms ?? [], to: raw) : raw
      switch value {
      case .string(let text):
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
      case .integer(let number): return String(number)
      default: return nil
      }
    }
    let link = text(rule.link)
    if let link, let url = URL(string: link), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https",
      url.host != nil
    {
      return .success((ArticleIdentity.linked(url).absoluteString, link))
    }
    if let id = text(rule.id) {
      return .success((ArticleIdentity.scoped(rule.scope ?? source, id: id).absoluteString, link))
    }
    if let link { return .failure(ArticleKeyProblem("\(link) is not an absolute http(s) URL, and the item has no id")) }
    return .failure(ArticleKeyProblem("missing identity: the item has no link and no id"))
  }

  /// The key of the article whose own identifier is `id` (a join record's owner).
  func articleKey(forID id: DatabaseValue, _ mapping: EntityMapping) -> DatabaseValue? {
    guard case .text(let text) = id, let rule = mapping.articleKey, rule.id != nil else { return nil }
    return .text(ArticleIdentity.scoped(rule.scope ?? source, id: text).absoluteString)
  }

  /// The record's identity, when it can be read (whatever else is wrong with the record).
  func readableIdentity(_ item: JSONValue, _ mapping: EntityMapping) -> Identity? {
    if mapping.entity.name == EntityDescription.article.name {
      guard case .success(let key) = articleKey(item, mapping) else { return nil }
      return Identity(.text(key.key))
    }
    var values: [DatabaseValue] = []
    for key in mapping.entity.identity {
      guard let attribute = mapping.entity.attribute(key),
        let raw = lookup(item, key, mapping.attributes[key]?.keyPath).flatMap(ValueConverter.unwrapParse),
        let value = ValueConverter.identity(
          ValueConverter.apply(mapping.attributes[key]?.transforms ?? [], to: raw), type: attribute.type)
      else { return nil }
      values.append(value)
    }
    return Identity(values)
  }

  enum Outcome {
    case imported(Identity)
    case skipped
    case failed
  }

  /// The stored value of a `set` constant for `attribute`, or `nil` when a literal does not convert to its type.
  func constantValue(_ constant: Constant, for attribute: Attribute) -> DatabaseValue? {
    switch constant {
    case .importTime: return .integer(importTime.millisecondsSince1970)
    case .source: return .text(source)
    case .value(let value):
      if case .success(let stored) = ValueConverter.convert(value, to: attribute, mapping: AttributeMapping()) {
        return stored
      }
      return nil
    }
  }

  /// Maps one object to a record of `entity`, adds it to the identity map, and returns its identity.
  mutating func map(_ item: JSONValue, _ mapping: EntityMapping, place: String, root: Bool) -> Outcome {
    let name = mapping.entity.name
    let entityHooks = hooks[name]
    if let shouldImport = entityHooks?.shouldImport, !shouldImport(item) { return .skipped }
    if mapping.skip.contains(where: { item[path: $0.keyPath] == $0.equals }) { return .skipped }
    let item = entityHooks?.willImport?(item) ?? item

    // Identity first: every report about this record names it.
    var identityValues: [DatabaseValue] = []
    var articleLink: String?
    if mapping.entity.name == EntityDescription.article.name {
      switch articleKey(item, mapping) {
      case .success(let key):
        identityValues = [.text(key.key)]
        articleLink = key.link
      case .failure(let reason):
        report.errors.append(RecordError(entity: name, identity: nil, keyPath: place, reason: reason.reason))
        return .failed
      }
    }
    for key in mapping.entity.identity where identityValues.isEmpty {
      guard let attribute = mapping.entity.attribute(key) else { return .failed }
      // An identity attribute may be a `set` constant: `$source` scopes ids that are unique only within their
      // feed (JSON Feed item ids) to that feed.
      if let constant = mapping.constants[key], let value = constantValue(constant, for: attribute) {
        identityValues.append(value)
        continue
      }
      let raw = lookup(item, key, mapping.attributes[key]?.keyPath).flatMap(ValueConverter.unwrapParse)
      let transformed = raw.map { ValueConverter.apply(mapping.attributes[key]?.transforms ?? [], to: $0) }
      guard let raw = transformed,
        let value = ValueConverter.identity(
          raw, type: attribute.type, mapping: mapping.attributes[key] ?? AttributeMapping())
      else {
        report.errors.append(
          RecordError(
            entity: name, identity: nil, keyPath: "\(place).\(mapping.attributes[key]?.keyPath?.description ?? key)",
            reason: transformed == nil
              ? "missing identity \(key)"
              : "identity \(key) is \(ValueConverter.kind(transformed ?? .null)), not an identifier"))
        return .failed
      }
      identityValues.append(value)
    }
    let identity = Identity(identityValues)
    var record = Record(entity: name)
    for (key, value) in zip(mapping.entity.identity, identityValues) { record.values[key] = value }
    if let articleLink { record.values["link"] = .text(articleLink) }

    var failed = false
    for attribute in mapping.entity.attributes
    where !attribute.isLocalOnly && !mapping.entity.identity.contains(attribute.name) {
      let attributeMapping = mapping.attributes[attribute.name] ?? AttributeMapping()
      if mapping.entity.name == EntityDescription.article.name, mapping.attributes[attribute.name] == nil,
        mapping.constants[attribute.name] == nil
      {
        continue  // the built-in entity: only the attributes the mapping names
      }
      if let custom = entityHooks?.attributes[attribute.name] {
        do {
          if let value = try custom(item) { record.values[attribute.name] = value }
        } catch {
          report.errors.append(
            RecordError(
              entity: name, identity: identity.description, keyPath: "\(place).\(attribute.name)", reason: "\(error)"))
          failed = true
        }
        continue
      }
      let keyPath = attributeMapping.keyPath
      guard let found = lookup(item, attribute.name, keyPath) else {
        // Full representation: missing means clear — to null, or to the default; a required attribute without a
        // default cannot be cleared, so it is left as stored (and a new row without it is rejected and reported).
        if mapping.fullRepresentation, mapping.constants[attribute.name] == nil {
          if attribute.isOptional {
            record.values[attribute.name] = .null
          } else if let fallback = attribute.defaultValue {
            record.values[attribute.name] = fallback
          } else {
            // The record says "no value" for an attribute that must have one: that record's error.
            report.errors.append(
              RecordError(
                entity: name, identity: identity.description,
                keyPath: "\(place).\(keyPath?.description ?? attribute.name)",
                reason: "missing the required attribute \(attribute.name) (full representation)"))
            if mapping.onInvalidValue == .skipRecord { failed = true }
          }
        }
        continue
      }
      guard let raw = ValueConverter.unwrapParse(found) else { continue }
      switch ValueConverter.convert(raw, to: attribute, mapping: attributeMapping) {
      case .success(let value): record.values[attribute.name] = value
      case .failure(let problem):
        report.errors.append(
          RecordError(
            entity: name, identity: identity.description,
            keyPath: "\(place).\(keyPath?.description ?? attribute.name)", reason: problem.reason))
        if mapping.onInvalidValue == .skipRecord { failed = true }
      }
    }
    for (key, constant) in mapping.constants {
      guard let attribute = mapping.entity.attribute(key), let value = constantValue(constant, for: attribute) else {
        continue
      }
      record.values[key] = value
    }
    if failed { return .failed }

    for relationship in mapping.entity.relationships {
      let relationshipMapping = mapping.relationships[relationship.name] ?? RelationshipMapping()
      let here = "\(place).\(relationshipMapping.keyPath?.description ?? relationship.name)"
      guard let destination = self.mapping.entity(relationship.destination),
        let targetType = destination.entity.identity.first.flatMap(destination.entity.attribute)?.type
      else { continue }
      guard let found = lookup(item, relationship.name, relationshipMapping.keyPath) else {
        if mapping.fullRepresentation {
          if relationship.kind == .toOne {
            record.values[relationship.name] = .null
          } else {
            record.toMany[relationship.name] = []
          }
        }
        continue
      }
      switch relationship.kind {
      case .toOne:
        if found == .null {
          record.values[relationship.name] = .null
        } else if let target = reference(found, destination, targetType, place: here, from: (name, identity)) {
          record.values[relationship.name] = target
        }
      case .toMany:
        // A Parse Relation is a description, not members: its members come from the join export.
        if ValueConverter.unwrapParse(found) == nil { continue }
        var targets: [DatabaseValue] = []
        if case .array(let elements) = found {
          for (index, element) in elements.enumerated() {
            if let target = reference(
              element, destination, targetType, place: "\(here)[\(index)]", from: (name, identity))
            {
              targets.append(target)
            }
          }
        } else if found != .null {
          report.errors.append(
            RecordError(
              entity: name, identity: identity.description, keyPath: here,
              reason: "expected an array, found \(ValueConverter.kind(found))"))
          continue
        }
        if relationshipMapping.mode == .add {
          record.toManyAdditions[relationship.name] = targets
        } else {
          record.toMany[relationship.name] = targets
        }
      }
    }
    if let didImport = entityHooks?.didImport { deletes += didImport(&record) }
    add(record, identity)
    return .imported(identity)
  }

  /// The identity a relationship value refers to: a nested object (imported too), or an identifier (a placeholder
  /// row is created for it if the object is not in this payload).
  mutating func reference(
    _ value: JSONValue, _ destination: EntityMapping, _ type: AttributeType, place: String,
    from owner: (entity: String, identity: Identity)
  ) -> DatabaseValue? {
    if case .object(let fields) = value, fields["__type"] == nil {
      if case .imported(let identity) = map(value, destination, place: place, root: false) {
        return identity.values.first
      }
      return nil
    }
    guard let unwrapped = ValueConverter.unwrapParse(value), let target = ValueConverter.identity(unwrapped, type: type)
    else {
      report.errors.append(
        RecordError(
          entity: owner.entity, identity: owner.identity.description, keyPath: place,
          reason: "not a reference to \(destination.entity.name): \(value)"))
      return nil
    }
    placeholder(destination, target)
    return target
  }

  mutating func placeholder(_ destination: EntityMapping, _ target: DatabaseValue) {
    guard let key = destination.entity.identity.first else { return }
    let identity = Identity(target)
    if records[destination.entity.name]?[identity] == nil {
      add(Record(entity: destination.entity.name, values: [key: target]), identity)
    }
  }

  mutating func add(_ record: Record, _ identity: Identity) {
    if var existing = records[record.entity]?[identity] {
      existing.values.merge(record.values) { $1 }
      existing.toMany.merge(record.toMany) { $1 }
      existing.toManyAdditions.merge(record.toManyAdditions) { $0 + $1 }
      records[record.entity]?[identity] = existing
    } else {
      records[record.entity, default: [:]][identity] = record
      order.append((record.entity, identity))
    }
  }

  /// The value of `name` in `item`: at the explicit key path, else under the name itself or its snake_case or
  /// PascalCase form (`userId` ← `userId`, `UserId`, `user_id`).
  func lookup(_ item: JSONValue, _ name: String, _ keyPath: KeyPath?) -> JSONValue? {
    if let keyPath { return item[path: keyPath] }
    guard case .object(let fields) = item else { return nil }
    if let value = fields[name] { return value }
    if let first = name.first {
      if let value = fields[first.uppercased() + name.dropFirst()] { return value }
    }
    var snake = ""
    for character in name {
      if character.isUppercase {
        snake += "_" + character.lowercased()
      } else {
        snake.append(character)
      }
    }
    return fields[snake]
  }
}

/// Why an article record has no key.
struct ArticleKeyProblem: Error {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}
