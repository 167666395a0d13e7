import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// The general JSON → store importer: a mapping turns any API's JSON into records with identity, upsert and
/// relationships, saved in one transaction, with a report of what happened to every record.
///
/// For example:
/// ```swift
/// let mapping = try ImportMapping.load(contentsOf: URL(fileURLWithPath: "Config/mappings/hackernews.json"))
/// let storage = try StorageContext(path: "news.sqlite")  // learns the mapping's entities at its first import
/// let report = try await Importer(mapping: mapping).run(data, into: storage, source: "topstories.json")
/// print(report.inserted, report.failed, report.failures.first as Any, report.warnings.count)
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
/// - A failure stays where it is: a value that cannot be converted costs that value (a warning: a new row goes
///   without it, an existing row keeps its stored value); only an identity, or a required attribute, that cannot be
///   read skips the record (a failure) — or any bad value under `onInvalidValue: skipRecord`. Never stored as `nil`.
/// - One transaction per import; existing rows are looked up one query per entity per 500 records; unchanged rows
///   are not rewritten.
public struct Importer: Sendable {
  /// The mapping every run applies.
  package let mapping: ImportMapping
  /// Per-entity callbacks around each record (tests and package tools only).
  package let hooks: ImportHooks

  /// An importer for `mapping`.
  public init(mapping: ImportMapping) {
    self.init(mapping: mapping, hooks: ImportHooks())
  }

  /// An importer for `mapping` that calls `hooks` around each record.
  package init(mapping: ImportMapping, hooks: ImportHooks) {
    self.mapping = mapping
    self.hooks = hooks
  }

  /// How an import writes its root records (relationship destinations and placeholders are always upserted, so
  /// that every reference finds its row).
  public enum Operation: String, Sendable, Hashable, CaseIterable {
    /// Insert new rows and update existing ones (the default).
    case upsert
    /// Insert new rows; existing rows are left as they are (counted skipped).
    case insertOnly
    /// Update existing rows; records without a row are not inserted (counted skipped).
    case updateOnly
  }

  /// Options of one import run.
  public struct Options: Sendable {
    /// Sync deletion: delete the root rows in this scope that the payload does not hold, so that the store then
    /// holds what the payload holds. `nil` (default): nothing is deleted. Never runs when the payload cannot be
    /// read (the import throws first), nor when a root record's identity cannot be read (which row it is is not
    /// known; reported as a warning).
    package var deleteMissing: MissingRowsScope?
    /// How root records are written.
    package var operation: Operation
    /// When the import runs (`$importTime` constants): an instant, kept to the millisecond.
    package var importTime: Date {
      get { importTimestamp.date }
      set { importTimestamp = Timestamp(newValue) }
    }
    /// ``importTime`` as the store keeps it: UTC milliseconds since 1970.
    package var importTimestamp: Timestamp
    /// Changes of entities outside the mapping saved in the same transaction as the import, all or nothing with it:
    /// for instance a sync engine's cursor and the deletion of the staged page just imported. Not counted in the
    /// report.
    package var additionalChanges = ChangeSet()
    /// How the payload's built-in `article` records are recorded as a fetch; `nil`: as a fetch of the payload's
    /// `source`, whose whole answer they are, at ``importTime``.
    package var articleFetch: ArticleFetch?

    /// Options; by default an upsert that deletes nothing, at the current time.
    public init(deleteMissing: MissingRowsScope? = nil, operation: Operation = .upsert, importTime: Date = Date()) {
      self.init(deleteMissing: deleteMissing, operation: operation, importTime: Timestamp(importTime))
    }

    /// Options with the import time as the store keeps it.
    package init(deleteMissing: MissingRowsScope? = nil, operation: Operation = .upsert, importTime: Timestamp) {
      self.deleteMissing = deleteMissing
      self.operation = operation
      self.importTimestamp = importTime
    }
  }

  /// Parses `data`, maps it and saves it in one transaction.
  ///
  /// Text the JSON reader repaired (a lone surrogate, invalid UTF-8; see `JSONValue/parseDocument(_:)`) is
  /// reported as a warning of the record that holds it.
  ///
  /// - Parameters:
  ///   - data: the JSON payload.
  ///   - storage: the store. One opened without the mapping's entities (``ImportMapping/entityDescriptions``), or
  ///     without some of their attributes, learns them before the save (`StorageContext.learn(_:)`: the tables,
  ///     columns and indexes are added as an open with them adds them), so `StorageContext(path:)` is enough.
  ///   - source: where the payload came from (a path or URL), for `$source` constants, `$source` base URLs and
  ///     messages.
  /// - Returns: the report.
  /// - Throws: ``ImportFailure``: `.input` (an ``ImportError``) when the payload is not valid JSON or does not match
  ///   the mapping (nothing written); `.storage` (a ``StorageError``, naming the database) when the save fails
  ///   (rolled back), or the store cannot learn the mapping's entities (a read-only store, an incompatible schema);
  ///   `.cancelled` when the task was cancelled (nothing written).
  ///
  /// An array of records is read one record at a time (``streamsRecords``): the whole payload is checked first (a
  /// payload that is not JSON throws before any record is mapped), then each record is read from `data`, mapped,
  /// and its JSON dropped before the next, so the payload is never held whole as JSON values.
  public func run(_ data: Data, into storage: StorageContext, source: String, options: Options = Options())
    async throws(ImportFailure) -> ImportReport
  {
    guard streamsRecords else {
      let document: JSONDocument
      do {
        document = try JSONValue.parseDocument(data)
      } catch {
        throw .input(error)
      }
      return try await run(document, into: storage, source: source, options: options)
    }
    if Task.isCancelled { throw .cancelled }
    var changes = ChangeSet()
    var report = ImportReport()
    var failure: ImportError?
    data.withUnsafeBytes { raw in
      do throws(ImportError) {
        let reader = try JSONRecordsReader(bytes: raw, records: mapping.records)
        (changes, report) = try makeChanges(reader.document, records: reader, source: source, options: options)
      } catch {
        failure = error
      }
    }
    if let failure { throw .input(failure) }
    return try await save(changes, report, into: storage, options: options)
  }

  /// Whether ``run(_:into:source:options:)-(Data,_,_,_)`` reads the records one at a time: they are an array (not
  /// one record), and no `$document` value the mapping reads (a constant, a base URL, an article key's scope) lies
  /// inside it, since the document is then kept without them.
  package var streamsRecords: Bool {
    guard mapping.recordShape != .single else { return false }
    var paths: [JSONPath] = []
    for entity in mapping.entities {
      for case .document(let path) in entity.constants.values { paths.append(path) }
      for attribute in entity.attributes.values {
        for case .document(let path) in attribute.baseURL { paths.append(path) }
      }
      for case .document(let path) in entity.articleKey?.scopeFrom ?? [] { paths.append(path) }
    }
    return !paths.contains { $0.components.starts(with: mapping.records.components) }
  }

  /// Maps an already parsed payload and saves it in one transaction, as ``run(_:into:source:options:)-(Data,_,_,_)``.
  ///
  /// - Throws: as the form that takes `Data`.
  package func run(_ json: JSONValue, into storage: StorageContext, source: String, options: Options = Options())
    async throws(ImportFailure) -> ImportReport
  {
    try await run(JSONDocument(value: json), into: storage, source: source, options: options)
  }

  /// Maps a parsed document (its repairs reported as warnings) and saves it in one transaction.
  ///
  /// - Throws: as the form that takes `Data`.
  package func run(
    _ document: JSONDocument, into storage: StorageContext, source: String, options: Options = Options()
  ) async throws(ImportFailure) -> ImportReport {
    if Task.isCancelled { throw .cancelled }
    let changes: ChangeSet
    let report: ImportReport
    do {
      (changes, report) = try makeChanges(document, source: source, options: options)
    } catch {
      throw .input(error)
    }
    return try await save(changes, report, into: storage, options: options)
  }

  /// Saves a mapped payload's changes (and the options' additional changes) in one transaction and completes its
  /// report with what the store did.
  ///
  /// - Throws: `.storage` or `.cancelled`, as ``run(_:into:source:options:)-(Data,_,_,_)``.
  private func save(
    _ changes: consuming ChangeSet, _ report: consuming ImportReport, into storage: StorageContext, options: Options
  ) async throws(ImportFailure) -> ImportReport {
    changes.upserts += options.additionalChanges.upserts
    changes.deletes += options.additionalChanges.deletes
    changes.deleteMissing += options.additionalChanges.deleteMissing
    changes.orphanDeletion.formUnion(options.additionalChanges.orphanDeletion)
    changes.operations.merge(options.additionalChanges.operations) { mine, _ in mine }
    if Task.isCancelled { throw .cancelled }
    var summaries: [String: SaveSummary]
    do {
      // A store opened without the mapping's entities (or with an older version of them) learns them first.
      try await storage.learn(mapping.entityDescriptions)
      summaries = try await storage.save(changes)
    } catch {
      throw .storage(error)
    }
    changes = ChangeSet()
    report.evicted += summaries[EntityDescription.article.name]?.evicted ?? 0
    let mapped = Set(mapping.entities.map(\.entity.name))
    summaries = summaries.filter { mapped.contains($0.key) }
    for (entity, summary) in summaries {
      report.entities[entity] = .init(
        inserted: summary.inserted, updated: summary.updated, unchanged: summary.unchanged, deleted: summary.deleted)
    }
    for (entity, summary) in summaries.sorted(by: { $0.key < $1.key }) {
      for rejection in summary.rejected {
        let place =
          report.recordPlaces[ImportReport.placeKey(entity, rejection.identity)] ?? "(\(entity) \(rejection.identity))"
        report.failures.append(
          RecordError(
            entity: entity, identity: rejection.identity.description, keyPath: place, reason: rejection.reason))
      }
    }
    let roots = mapping.rootEntities.compactMap { summaries[$0] }
    report.failed += roots.reduce(0) { $0 + $1.rejected.count }
    report.skipped += roots.reduce(0) { $0 + $1.skipped }
    report.remembered += roots.reduce(0) { $0 + $1.remembered }
    report.rememberedEvicted += roots.reduce(0) { $0 + $1.rememberedEvicted }
    if mapping.join == nil {
      report.inserted = roots.reduce(0) { $0 + $1.inserted }
      report.updated = roots.reduce(0) { $0 + $1.updated }
      report.unchanged = roots.reduce(0) { $0 + $1.unchanged }
    } else {
      // A join's records are links: new ones are inserted, links already there unchanged.
      let linksAdded = roots.reduce(0) { $0 + $1.linksAdded }
      report.inserted = linksAdded
      report.unchanged = max(0, report.joinLinks - linksAdded)
    }
    report.deleted = roots.reduce(0) { $0 + $1.deleted }
    return report
  }

  /// Maps a parsed payload to a change set and the report's record-level part, without touching storage.
  ///
  /// - Throws: ``ImportError/doesNotMatchMapping(_:)`` when there is no array of records (or, for `record`, no
  ///   object) where the mapping says.
  package func makeChanges(_ json: JSONValue, source: String, options: Options = Options()) throws(ImportError)
    -> (ChangeSet, ImportReport)
  {
    try makeChanges(JSONDocument(value: json), source: source, options: options)
  }

  /// Maps a parsed document to a change set and the report's record-level part, without touching storage.
  ///
  /// - Throws: as ``makeChanges(_:source:options:)-(JSONValue,_,_)``.
  package func makeChanges(_ document: JSONDocument, source: String, options: Options = Options()) throws(ImportError)
    -> (ChangeSet, ImportReport)
  {
    try makeChanges(document, records: nil, source: source, options: options)
  }

  /// Maps a parsed document to a change set, reading its array of records from `records` when given (the
  /// document then holds it empty), else from the document.
  ///
  /// - Throws: as ``makeChanges(_:source:options:)-(JSONValue,_,_)``.
  func makeChanges(_ document: JSONDocument, records: JSONRecordsReader?, source: String, options: Options)
    throws(ImportError) -> (ChangeSet, ImportReport)
  {
    let json = document.value
    guard let container = json[path: mapping.records] else {
      let what = mapping.recordShape == .single ? "record" : "records"
      throw .doesNotMatchMapping("no \"\(mapping.records)\" in the payload (the mapping's \(what))")
    }
    var state = ImportState(
      mapping: mapping, hooks: hooks, source: source, importTime: options.importTimestamp, document: json)
    let base = mapping.records.components.isEmpty ? "" : mapping.records.description
    switch mapping.recordShape {
    case .single:
      guard case .object = container else {
        let place = mapping.records.components.isEmpty ? "the document" : "\"\(mapping.records)\""
        throw .doesNotMatchMapping("\(place) is \(ValueConverter.kind(container)), not the one object of a record")
      }
      state.importRoot(container, index: 0, place: base)
    case .objects, .identifiers:
      guard case .array(let items) = container else {
        let place = mapping.records.components.isEmpty ? "the top level" : "\"\(mapping.records)\""
        let expected = mapping.recordShape == .identifiers ? "an array of identifiers" : "an array of records"
        throw .doesNotMatchMapping("\(place) is \(ValueConverter.kind(container)), not \(expected)")
      }
      for index in 0..<(records?.count ?? items.count) {
        // Each record read from the payload's bytes is dropped before the next is read.
        let item = try records?.element(index) ?? items[index]
        let place = "\(base)[\(index)]"
        if let join = mapping.join {
          state.importJoin(item, join, place: place)
        } else if mapping.recordShape == .identifiers {
          state.importIdentifier(item, index: index, place: place)
        } else {
          state.importRoot(item, index: index, place: place)
        }
      }
    }
    state.reportRepairs(document.repairs)
    var changes = ChangeSet(upserts: state.orderedRecords(), deletes: state.deletes)
    changes.orphanDeletion = state.orphanDeletion
    changes.articleFetch =
      options.articleFetch ?? ArticleFetch(query: source, source: source, fetchedAt: options.importTimestamp)
    if options.operation != .upsert {
      for entity in mapping.rootEntities {
        changes.operations[entity] = options.operation == .insertOnly ? .insertOnly : .updateOnly
      }
    }
    if let scope = options.deleteMissing, mapping.join == nil {
      if state.unidentifiedRoots > 0 {
        state.report.warnings.append(
          RecordError(
            entity: mapping.rootEntity, identity: nil, keyPath: base.isEmpty ? "(the records)" : base,
            reason: "sync deletion did not run: \(state.unidentifiedRoots) record(s) have no readable identity, "
              + "so which rows the payload holds is not known"))
      } else {
        for entity in mapping.rootEntities {
          guard let description = mapping.entity(entity)?.entity, let key = description.identity.first else { continue }
          let predicate: FetchPredicate
          switch scope {
          // The built-in article entity is every source's: a payload mirrors its own source's articles, never
          // another's (a 3-item JSON Feed mirrored with `.entity` deleted every feed's articles). As a Parse sync
          // prunes them.
          case .entity where entity == EntityDescription.article.name:
            predicate = FetchPredicate.attribute("source") == source
          // Every row has its identity: the whole entity, asked for explicitly.
          case .entity: predicate = .isNotNull(key)
          case .matching(let condition) where entity == EntityDescription.article.name:
            predicate = .and([condition, FetchPredicate.attribute("source") == source])
          case .matching(let condition): predicate = condition
          }
          changes.deleteMissing.append(
            MissingRowsDeletion(entity: entity, scope: predicate, keep: state.rootSeen[entity] ?? []))
        }
      }
    }
    return (changes, state.report)
  }
}

/// Which root rows sync deletion may delete: those the payload does not hold, within this scope.
///
/// The built-in `article` entity holds every source's articles, so for it either scope is narrowed to the import's
/// `source` (`article.source`, as a Parse sync prunes): a payload mirrors its own source's articles, never another's.
public enum MissingRowsScope: Sendable, Hashable {
  /// Every row of the root entity (of each root entity, with `entityBy`): the store mirrors the payload. For the
  /// article entity, every article of the import's source.
  case entity
  /// The root rows matching a condition, e.g. `.attribute("feed") == "tech"`: the payload is one feed's list (for
  /// the article entity, within the import's source).
  case matching(FetchPredicate)
}
