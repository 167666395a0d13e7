import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// The identity map and report of one import: maps each record of a payload to ``Record``s (nested objects and
/// references become rows of their own), and says what happened to each record and value.
struct ImportState {
  let mapping: ImportMapping
  let hooks: ImportHooks
  let source: String
  let importTime: Timestamp
  /// The whole payload: base URLs are read from it.
  let document: JSONValue
  let entityMappings: [String: EntityMapping]
  /// Per attribute or relationship name, the keys read when its mapping has no `from`.
  let defaultKeys: [String: [String]]
  /// Relationships whose children are deleted when they leave the list (`deleteOrphans`, owned destinations).
  let orphanDeletion: Set<RelationshipReference>

  var report = ImportReport()
  var records: [String: [Identity: Record]] = [:]
  var order: [(String, Identity)] = []
  /// Every root identity the payload holds, imported or not, per entity: what sync deletion keeps.
  var rootSeen: [String: Set<Identity>] = [:]
  var seenImported: [String: Set<Identity>] = [:]
  /// Root records whose identity could not be read: sync deletion does not run when there is one.
  var unidentifiedRoots = 0
  var deletes: [(entity: String, identity: Identity)] = []
  /// Each root record's entity and identity by its index, to name the record of a repaired text.
  var rootRecords: [Int: (entity: String, identity: Identity?)] = [:]
  var formatters: [DateFormat: DateFormatter] = [:]
  var bases: [[BaseURLSource]: BaseURL] = [:]

  struct BaseURL {
    var url: URL?
  }

  init(mapping: ImportMapping, hooks: ImportHooks, source: String, importTime: Timestamp, document: JSONValue) {
    self.mapping = mapping
    self.hooks = hooks
    self.source = source
    self.importTime = importTime
    self.document = document
    var byName: [String: EntityMapping] = [:]
    var keys: [String: [String]] = [:]
    var orphans: Set<RelationshipReference> = []
    for entity in mapping.entities {
      byName[entity.entity.name] = entity
      for name in entity.entity.attributes.map(\.name) + entity.entity.relationships.map(\.name)
      where keys[name] == nil {
        keys[name] = KeyNames.defaults(for: name)
      }
    }
    for entity in mapping.entities {
      for relationship in entity.entity.relationships where relationship.kind == .toMany {
        if entity.relationships[relationship.name]?.deleteOrphans == true
          || byName[relationship.destination]?.isOwned == true
        {
          orphans.insert(RelationshipReference(entity: entity.entity.name, relationship: relationship.name))
        }
      }
    }
    entityMappings = byName
    defaultKeys = keys
    orphanDeletion = orphans
  }

  func orderedRecords() -> [Record] { order.compactMap { records[$0.0]?[$0.1] } }

  // MARK: - Root records

  mutating func importRoot(_ item: JSONValue, index: Int, place: String) {
    // `null` in the list is no record (the Hacker News API's answer for a missing item): nothing is lost, so it is
    // skipped with the reason, not failed.
    if item == .null {
      report.skipped += 1
      reportProblem(
        mapping.rootEntity, nil, place.isEmpty ? "(the record)" : place, "null, not a record; skipped", warning: true)
      return
    }
    guard case .object = item else {
      report.failed += 1
      unidentifiedRoots += 1
      reportProblem(
        mapping.rootEntity, nil, place.isEmpty ? "(the record)" : place,
        "expected an object, found \(ValueConverter.kind(item))")
      return
    }
    guard let name = rootEntity(of: item, index: index, place: place), let entity = entityMappings[name] else {
      report.skipped += 1
      return
    }
    if case .success(let identity) = readIdentity(item, entity, place: place) {
      rootSeen[name, default: []].insert(identity)
      rootRecords[index] = (name, identity)
    } else {
      rootRecords[index] = (name, nil)
    }
    switch map(item, entity, place: place) {
    case .imported(let identity):
      report.recordPlaces[ImportReport.placeKey(name, identity)] = place
      if seenImported[name, default: []].insert(identity).inserted == false {
        report.duplicates += 1
        reportProblem(
          name, identity, place.isEmpty ? "(the record)" : place,
          "duplicate of an earlier record in this payload; one row, this later record wins", warning: true)
      }
    case .skipped: report.skipped += 1
    case .failed(let identityUnreadable):
      report.failed += 1
      if identityUnreadable { unidentifiedRoots += 1 }
    }
  }

  /// The entity a root record becomes: the mapping's root, or the one `entityBy` picks; `nil` (reported) when
  /// `entityBy` has no entity for the record's value.
  mutating func rootEntity(of item: JSONValue, index: Int, place: String) -> String? {
    guard let selector = mapping.entityBy else { return mapping.rootEntity }
    let value = item[path: selector.keyPath]
    var key: String?
    switch value {
    case .string(let text)?: key = text
    case .integer(let number)?: key = String(number)
    default: key = nil
    }
    if let key, let name = selector.map[key] { return name }
    if let fallback = selector.fallback { return fallback }
    let listed = selector.map.keys.sorted().joined(separator: ", ")
    let found = value.map { "\($0)" } ?? "missing"
    rootRecords[index] = (mapping.rootEntity, nil)
    reportProblem(
      mapping.rootEntity, nil, at(place, selector.keyPath.description),
      "\(selector.keyPath) is \(found), which entityBy.map does not list (\(listed)): the record is skipped; "
        + "add the value to the map, or give entityBy a \"default\"", warning: true)
    return nil
  }

  /// A root record that is an identifier (`recordsAreIdentifiers`): a row with its identity and `set` values.
  mutating func importIdentifier(_ item: JSONValue, index: Int, place: String) {
    guard let entity = entityMappings[mapping.rootEntity],
      let key = entity.entity.identity.first(where: { entity.constants[$0] == nil }),
      let attribute = entity.entity.attribute(key)
    else { return }
    let name = entity.entity.name
    let raw = ValueConverter.unwrapParse(item) ?? .null
    let spec = entity.attributes[key] ?? AttributeMapping()
    let transformed = ValueConverter.apply(spec.transforms, to: raw)
    guard let value = ValueConverter.identity(transformed, type: attribute.type, options: options(for: spec)) else {
      report.failed += 1
      unidentifiedRoots += 1
      rootRecords[index] = (name, nil)
      reportProblem(name, nil, place, "expected an identifier (text or a number) for \(key), found \(item)")
      return
    }
    var record = Record(entity: name)
    var values: [DatabaseValue] = []
    for identityKey in entity.entity.identity {
      if identityKey == key {
        values.append(value)
      } else if let constant = entity.constants[identityKey], let attribute = entity.entity.attribute(identityKey),
        let constantValue = constantValue(constant, for: attribute)
      {
        values.append(constantValue)
      }
    }
    for (constantKey, constant) in entity.constants {
      guard let attribute = entity.entity.attribute(constantKey),
        let constantValue = constantValue(constant, for: attribute)
      else { continue }
      record.values[constantKey] = constantValue
    }
    record.values[key] = value
    let identity = Identity(values)
    rootSeen[name, default: []].insert(identity)
    rootRecords[index] = (name, identity)
    report.recordPlaces[ImportReport.placeKey(name, identity)] = place
    if seenImported[name, default: []].insert(identity).inserted == false {
      report.duplicates += 1
      reportProblem(name, identity, place, "duplicate of an earlier identifier in this payload", warning: true)
    }
    add(record, identity)
  }

  mutating func importJoin(_ item: JSONValue, _ join: JoinMapping, place: String) {
    guard let entity = entityMappings[join.entity], let relationship = entity.entity.relationship(join.relationship),
      let ownerType = entity.entity.identity.first.flatMap(entity.entity.attribute)?.type,
      let destination = entityMappings[relationship.destination],
      let targetType = destination.entity.identity.first.flatMap(destination.entity.attribute)?.type
    else { return }
    let ownerRaw = item[path: join.owner].flatMap { ValueConverter.identity($0, type: ownerType) }
    guard
      let ownerValue = join.entity == EntityDescription.article.name
        ? ownerRaw.flatMap({ articleKey(forID: $0, entity) }) : ownerRaw,
      let targetValue = item[path: join.target].flatMap({ ValueConverter.identity($0, type: targetType) })
    else {
      report.failed += 1
      reportProblem(join.entity, nil, place, "a join record needs \(join.owner) and \(join.target)")
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

  // MARK: - Identity

  struct IdentityProblem: Error {
    var keyPath: String
    var reason: String
  }

  /// The record's identity: each identity attribute from a `set` constant, or read (with its candidates, in order).
  mutating func readIdentity(_ item: JSONValue, _ entity: EntityMapping, place: String) -> Result<
    Identity, IdentityProblem
  > {
    if entity.entity.name == EntityDescription.article.name {
      switch articleKey(item, entity, place: place) {
      case .success(let key): return .success(Identity(.text(key.key)))
      case .failure(let problem): return .failure(IdentityProblem(keyPath: problem.keyPath, reason: problem.reason))
      }
    }
    var values: [DatabaseValue] = []
    for key in entity.entity.identity {
      guard let attribute = entity.entity.attribute(key) else {
        return .failure(IdentityProblem(keyPath: place, reason: "no identity attribute \(key)"))
      }
      // An identity attribute may be a `set` constant: `$source` scopes ids that are unique only within their
      // feed (JSON Feed item ids) to that feed.
      if let constant = entity.constants[key], let value = constantValue(constant, for: attribute) {
        values.append(value)
        continue
      }
      let candidates = [key] + (entity.identityCandidates[key] ?? [])
      var problem: IdentityProblem?
      var value: DatabaseValue?
      for candidate in candidates {
        let spec = entity.attributes[candidate] ?? AttributeMapping()
        guard let (found, usedKey) = lookup(item, candidate, spec.keyPaths) else { continue }
        let transformed = ValueConverter.apply(spec.transforms, to: ValueConverter.unwrapParse(found) ?? .null)
        if let read = ValueConverter.identity(transformed, type: attribute.type, options: options(for: spec)) {
          value = read
          break
        }
        problem =
          problem
          ?? IdentityProblem(
            keyPath: at(place, usedKey),
            reason: transformed == .null
              ? "missing identity \(key) (null)" : "identity \(key) is \(transformed), not an identifier")
      }
      guard let value else {
        let first = entity.attributes[key]?.keyPaths.first?.description ?? key
        let tried =
          candidates.count > 1 ? " (nor its candidates \(candidates.dropFirst().joined(separator: ", ")))" : ""
        return .failure(
          problem ?? IdentityProblem(keyPath: at(place, first), reason: "missing identity \(key)\(tried)"))
      }
      values.append(value)
    }
    return .success(Identity(values))
  }

  enum Outcome {
    case imported(Identity)
    case skipped
    case failed(identityUnreadable: Bool)
  }

  /// The stored value of a `set` constant for `attribute`, or `nil` when a literal does not convert to its type.
  func constantValue(_ constant: Constant, for attribute: Attribute) -> DatabaseValue? {
    switch constant {
    case .importTime: return .integer(importTime.millisecondsSince1970)
    case .source: return .text(source)
    case .document(let path):
      guard let value = document[path: path], value != .null,
        case .success(let stored) = ValueConverter.convert(value, to: attribute, options: ConversionOptions())
      else { return nil }
      return stored.value
    case .value(let value):
      if case .success(let stored) = ValueConverter.convert(value, to: attribute, options: ConversionOptions()) {
        return stored.value
      }
      return nil
    }
  }

  // MARK: - Mapping one object

  /// Maps one object to a record of `entity`, adds it to the identity map, and returns its identity. `ownedKey` is
  /// the identity of a row of an owned entity (its owner, relationship and position).
  mutating func map(_ item: JSONValue, _ entity: EntityMapping, place: String, ownedKey: DatabaseValue? = nil)
    -> Outcome
  {
    let name = entity.entity.name
    let entityHooks = hooks[name]
    if let shouldImport = entityHooks?.shouldImport, !shouldImport(item) { return .skipped }
    if entity.skip.contains(where: { item[path: $0.keyPath] == $0.equals }) { return .skipped }
    let item = entityHooks?.willImport?(item) ?? item

    // Identity first: every report about this record names it.
    let identity: Identity
    if let ownedKey {
      identity = Identity(ownedKey)
    } else {
      switch readIdentity(item, entity, place: place) {
      case .success(let read): identity = read
      case .failure(let problem):
        reportProblem(name, nil, problem.keyPath, problem.reason)
        return .failed(identityUnreadable: true)
      }
    }
    var record = Record(entity: name)
    for (key, value) in zip(entity.entity.identity, identity.values) { record.values[key] = value }
    if name == EntityDescription.article.name, case .success(let key) = articleKey(item, entity, place: place),
      let link = key.link
    {
      record.values["link"] = .text(link)  // the link as given; the key is its canonical form
    }
    let skipRecord = entity.onInvalidValue == .skipRecord

    var failed = false
    for attribute in entity.entity.attributes
    where !attribute.isLocalOnly && !entity.entity.identity.contains(attribute.name) {
      if name == EntityDescription.article.name, entity.attributes[attribute.name] == nil,
        entity.constants[attribute.name] == nil
      {
        continue  // the built-in entity: only the attributes the mapping names
      }
      // The article writer derives a missing title (from the text) and publication date (the time first seen), so
      // for the built-in article an unreadable one costs that value, as an optional attribute's does.
      let derived = name == EntityDescription.article.name && ["title", "publishedAt"].contains(attribute.name)
      let required = !attribute.isOptional && attribute.defaultValue == nil && !derived
      if let custom = entityHooks?.attributes[attribute.name] {
        do {
          if let value = try custom(item) { record.values[attribute.name] = value }
        } catch {
          if invalid(required || skipRecord, name, identity, at(place, attribute.name), "\(error)") { failed = true }
        }
        continue
      }
      let spec = entity.attributes[attribute.name] ?? AttributeMapping()
      guard let (found, key) = lookup(item, attribute.name, spec.keyPaths) else {
        // Full representation: missing means clear — to null, or to the default; a required attribute without a
        // default cannot be cleared: the record says "no value" where one is needed, and is not imported.
        if entity.fullRepresentation, entity.constants[attribute.name] == nil {
          if attribute.isOptional {
            record.values[attribute.name] = .null
          } else if let fallback = attribute.defaultValue {
            record.values[attribute.name] = fallback
          } else {
            reportProblem(
              name, identity, at(place, spec.keyPaths.first?.description ?? attribute.name),
              "missing the required attribute \(attribute.name) (full representation)")
            failed = true
          }
        }
        continue
      }
      guard let raw = ValueConverter.unwrapParse(found) else { continue }
      switch ValueConverter.convert(raw, to: attribute, options: options(for: spec)) {
      case .success(let converted):
        record.values[attribute.name] = converted.value
        if let caveat = converted.caveat { reportProblem(name, identity, at(place, key), caveat, warning: true) }
      case .failure(let problem):
        let reason = required ? "\(problem.reason) (\(attribute.name) is required)" : problem.reason
        if invalid(required || skipRecord, name, identity, at(place, key), reason) { failed = true }
      }
    }
    for (key, constant) in entity.constants {
      guard let attribute = entity.entity.attribute(key), let value = constantValue(constant, for: attribute) else {
        continue
      }
      record.values[key] = value
    }
    if failed { return .failed(identityUnreadable: false) }

    // What the relationships write (nested objects, their placeholders) is undone when the record fails: a record,
    // and each of its lists, is imported whole or not at all.
    let mark = beginJournal()
    defer { endJournal() }
    for relationship in entity.entity.relationships {
      // Under skipRecord, the first relationship that cannot be read ends the record.
      if failed { break }
      let spec = entity.relationships[relationship.name] ?? RelationshipMapping()
      guard let destination = entityMappings[relationship.destination],
        let targetType = destination.entity.identity.first.flatMap(destination.entity.attribute)?.type
      else { continue }
      guard let (found, key) = lookup(item, relationship.name, spec.keyPaths) else {
        if entity.fullRepresentation {
          if relationship.kind == .toOne {
            record.values[relationship.name] = .null
          } else {
            record.toMany[relationship.name] = []
          }
        }
        continue
      }
      let here = at(place, key)
      let owner = (entity: name, identity: identity)
      var problem: Reference?
      switch relationship.kind {
      case .toOne:
        if found == .null {
          record.values[relationship.name] = .null
          continue
        }
        switch reference(found, destination, targetType, place: here, from: owner) {
        case .target(let target):
          record.values[relationship.name] = target
          placeholder(destination, target)
        case .skipped: continue
        case let other: problem = other
        }
      case .toMany:
        // A Parse Relation is a description, not members: its members come from the join export.
        if ValueConverter.unwrapParse(found) == nil { continue }
        var targets: [DatabaseValue] = []
        if case .array(let elements) = found {
          // An element that is not a valid reference (`null`, a nested object that cannot be imported) is left
          // out with a warning naming its index, and the others are kept; under skipRecord it costs the record,
          // and nothing of the list is written (the journal undoes the nested objects already imported).
          for (index, element) in elements.enumerated() {
            let elementPlace = "\(here)[\(index)]"
            let outcome: Reference =
              element == .null
              ? .invalid("null, not \(destination.isOwned ? "a row of" : "a reference to") \(destination.entity.name)")
              : destination.isOwned
                ? ownedRow(element, destination, place: elementPlace, from: owner, relationship.name, index)
                : reference(element, destination, targetType, place: elementPlace, from: owner)
            switch outcome {
            case .target(let target): targets.append(target)
            case .skipped: continue
            case .invalid(let reason):
              let consequence =
                skipRecord
                ? "the record is skipped (onInvalidValue: skipRecord)"
                : "element \(index) left out of \(relationship.name), the others kept"
              if invalid(skipRecord, name, identity, elementPlace, "\(reason); \(consequence)") { failed = true }
            case .unreadableObject:
              // The nested object's own failure is reported.
              if skipRecord {
                reportProblem(
                  name, identity, elementPlace,
                  "\(relationship.name)[\(index)] could not be imported; the record is skipped "
                    + "(onInvalidValue: skipRecord)")
                failed = true
              } else {
                reportProblem(
                  name, identity, elementPlace,
                  "\(relationship.name)[\(index)] could not be imported; left out of the list, the others kept",
                  warning: true)
              }
            }
            if failed { break }
          }
        } else if found != .null {
          problem = .invalid("expected an array, found \(ValueConverter.kind(found))")
        }
        if problem == nil && !failed {
          // Placeholders only for a list that is taken: a list left as it was creates no rows.
          for target in targets { placeholder(destination, target) }
          if spec.mode == .add {
            record.toManyAdditions[relationship.name] = targets
          } else {
            record.toMany[relationship.name] = targets
          }
        }
      }
      // A relationship that cannot be read is left as stored; under skipRecord, the record is not imported.
      switch problem {
      case .invalid(let reason)?:
        let consequence =
          skipRecord ? "the record is skipped (onInvalidValue: skipRecord)" : "\(relationship.name) is left as it was"
        if invalid(skipRecord, name, identity, here, "\(reason); \(consequence)") { failed = true }
      case .unreadableObject?:
        // The nested object's own failure is reported; under skipRecord its owner goes too.
        if skipRecord && !failed {
          reportProblem(
            name, identity, here,
            "\(relationship.name) could not be imported; the record is skipped (onInvalidValue: skipRecord)")
          failed = true
        }
      default: break
      }
    }
    if failed {
      rollBack(to: mark)
      return .failed(identityUnreadable: false)
    }
    if let didImport = entityHooks?.didImport { deletes += didImport(&record) }
    add(record, identity)
    return .imported(identity)
  }

  enum Reference {
    case target(DatabaseValue)
    /// A nested object left out by a skip rule or hook: not a reference, not an error.
    case skipped
    /// A value that is not a reference, with the reason.
    case invalid(String)
    /// A nested object that could not be imported (its failure is reported).
    case unreadableObject
  }

  /// The identity a relationship value refers to: a nested object (imported too), or an identifier (the caller
  /// creates a placeholder row for it, if the object is not in this payload, once the relationship is taken).
  mutating func reference(
    _ value: JSONValue, _ destination: EntityMapping, _ type: AttributeType, place: String,
    from owner: (entity: String, identity: Identity)
  ) -> Reference {
    if case .object(let fields) = value, fields["__type"] == nil {
      switch map(value, destination, place: place) {
      case .imported(let identity): return identity.values.first.map(Reference.target) ?? .unreadableObject
      case .skipped: return .skipped
      case .failed: return .unreadableObject
      }
    }
    guard let unwrapped = ValueConverter.unwrapParse(value), let target = ValueConverter.identity(unwrapped, type: type)
    else {
      return .invalid("not a reference to \(destination.entity.name): \(value)")
    }
    return .target(target)
  }

  /// A row of an owned entity: the object at position `index` of its owner's list, identified by both.
  mutating func ownedRow(
    _ value: JSONValue, _ destination: EntityMapping, place: String, from owner: (entity: String, identity: Identity),
    _ relationship: String, _ index: Int
  ) -> Reference {
    guard case .object(let fields) = value, fields["__type"] == nil else {
      return .invalid("expected an object (a row of \(destination.entity.name)), found \(ValueConverter.kind(value))")
    }
    let key = DatabaseValue.text("\(owner.entity):\(owner.identity)/\(relationship)/\(index)")
    switch map(value, destination, place: place, ownedKey: key) {
    case .imported: return .target(key)
    case .skipped: return .skipped
    case .failed: return .unreadableObject
    }
  }

  mutating func placeholder(_ destination: EntityMapping, _ target: DatabaseValue) {
    guard let key = destination.entity.identity.first else { return }
    let identity = Identity(target)
    if records[destination.entity.name]?[identity] == nil {
      add(Record(entity: destination.entity.name, values: [key: target]), identity)
    }
  }

  /// What ``add(_:_:)`` changed while a record is being mapped: each record's entity, identity, and the record
  /// it replaced (`nil` when it was new), so that a record that fails takes back what it wrote (``rollBack(to:)``).
  var journal: [(entity: String, identity: Identity, previous: Record?)] = []
  /// How many records being mapped are journaling (nested objects map inside their owner's journal).
  var journalDepth = 0
  /// The length of ``deletes`` at each open journal's start.
  var journalDeletes: [Int] = []

  /// Opens a journal for a record's writes; returns its mark, for ``rollBack(to:)``.
  mutating func beginJournal() -> Int {
    journalDepth += 1
    journalDeletes.append(deletes.count)
    return journal.count
  }

  /// Closes the journal that ``beginJournal()`` opened; the outermost one forgets what it held.
  mutating func endJournal() {
    journalDepth -= 1
    journalDeletes.removeLast()
    if journalDepth == 0 { journal.removeAll(keepingCapacity: true) }
  }

  /// Undoes every ``add(_:_:)`` since `mark`, latest first: a new record leaves (and its place in ``order``, the
  /// last one, since records are appended), a merged one is as it was; the deletes its hooks asked for go too.
  mutating func rollBack(to mark: Int) {
    guard mark < journal.count || (journalDeletes.last.map { $0 < deletes.count } ?? false) else { return }
    for entry in journal[mark...].reversed() {
      if let previous = entry.previous {
        records[entry.entity]?[entry.identity] = previous
      } else {
        records[entry.entity]?[entry.identity] = nil
        order.removeLast()
      }
    }
    journal.removeSubrange(mark...)
    if let count = journalDeletes.last, count < deletes.count { deletes.removeSubrange(count...) }
  }

  mutating func add(_ record: Record, _ identity: Identity) {
    if journalDepth > 0 { journal.append((record.entity, identity, records[record.entity]?[identity])) }
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

  // MARK: - Reading values

  /// The value of `name` in `item` and the key it was found under: the first present of the mapping's key paths,
  /// else the name itself or its PascalCase or snake_case form (`userId` ← `userId`, `UserId`, `user_id`).
  func lookup(_ item: JSONValue, _ name: String, _ keyPaths: [JSONPath]) -> (JSONValue, String)? {
    if !keyPaths.isEmpty {
      for path in keyPaths {
        if let value = item[path: path] { return (value, path.description) }
      }
      return nil
    }
    guard case .object(let fields) = item else { return nil }
    for key in defaultKeys[name] ?? [name] {
      if let value = fields[key] { return (value, key) }
    }
    return nil
  }

  /// The conversion options of an attribute: its mapping, the mapping's assumed offset, its formatter and base URL.
  mutating func options(for spec: AttributeMapping) -> ConversionOptions {
    var options = ConversionOptions(mapping: spec, defaultOffset: mapping.assumedOffset)
    if let format = spec.dateFormat {
      if let cached = formatters[format] {
        options.formatter = cached
      } else {
        let formatter = DateConversion.formatter(format)
        formatters[format] = formatter
        options.formatter = formatter
      }
    }
    if !spec.baseURL.isEmpty {
      if let cached = bases[spec.baseURL] {
        options.base = cached.url
      } else {
        let url = baseURL(spec.baseURL)
        bases[spec.baseURL] = BaseURL(url: url)
        options.base = url
      }
      options.baseSources = spec.baseURL.map { source -> String in
        switch source {
        case .document(let path): return path.description
        case .source: return "$source"
        }
      }.joined(separator: ", ")
    }
    return options
  }

  /// The first absolute `http`/`https` URL among the sources: key paths in the document, or the import's source.
  func baseURL(_ sources: [BaseURLSource]) -> URL? {
    for source in sources {
      let text: String?
      switch source {
      case .document(let path):
        if case .string(let value)? = document[path: path] { text = value } else { text = nil }
      case .source: text = self.source
      }
      guard let text, let url = URL(string: text.trimmingWhiteSpace),
        url.isWebURL
      else { continue }
      return url
    }
    return nil
  }

  // MARK: - Reporting

  /// `place.key`, or `key` at the top of the document.
  func at(_ place: String, _ key: String) -> String { place.isEmpty ? key : "\(place).\(key)" }

  /// Reports a problem: a failure (the record is not imported), or a warning (`warning: true`).
  mutating func reportProblem(
    _ entity: String, _ identity: Identity?, _ keyPath: String, _ reason: String, warning: Bool = false
  ) {
    let error = RecordError(entity: entity, identity: identity?.description, keyPath: keyPath, reason: reason)
    if warning {
      report.warnings.append(error)
    } else {
      report.failures.append(error)
    }
  }

  /// Reports a value that cannot be read: a failure when it costs the record, else a warning. Returns `costsRecord`.
  mutating func invalid(
    _ costsRecord: Bool, _ entity: String, _ identity: Identity, _ keyPath: String, _ reason: String
  )
    -> Bool
  {
    reportProblem(entity, identity, keyPath, reason, warning: !costsRecord)
    return costsRecord
  }

  /// Each text the JSON reader repaired, as a warning of the record holding it.
  mutating func reportRepairs(_ repairs: [JSONRepair]) {
    let prefix = mapping.records.description
    for repair in repairs {
      var owner: (entity: String, identity: Identity?) = (mapping.rootEntity, nil)
      if mapping.recordShape == .single {
        owner = rootRecords[0] ?? owner
      } else if let index = Self.recordIndex(repair.keyPath, prefix: prefix), let record = rootRecords[index] {
        owner = record
      }
      reportProblem(
        owner.entity, owner.identity, repair.keyPath.isEmpty ? "(the document)" : repair.keyPath, repair.description,
        warning: true)
    }
  }

  /// The record index of a key path under the records' key path: `items[3].title` under `items` → 3.
  static func recordIndex(_ keyPath: String, prefix: String) -> Int? {
    guard keyPath.hasPrefix(prefix + "[") else { return nil }
    let rest = keyPath.dropFirst(prefix.count + 1)
    guard let close = rest.firstIndex(of: "]") else { return nil }
    return Int(rest[..<close])
  }
}
