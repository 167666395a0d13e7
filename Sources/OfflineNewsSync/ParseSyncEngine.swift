import Foundation
import OfflineNewsHTTP
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsStorage

/// One Parse class to sync: its mapping (with the class's root selected) and paging.
public struct ParseClassSync: Sendable {
  /// The Parse class, e.g. `Article` or `_User`.
  package var className: String
  /// The mapping its objects are imported with (``ImportMapping/selecting(root:)`` applied).
  package var mapping: ImportMapping
  /// Objects per request (Parse's `limit`), 1…1000; default 100.
  package var pageSize: Int
  /// The largest response accepted, in bytes (default 64 MB): past it the transfer stops and the class fails.
  public var maxPageBytes = 64_000_000
  /// Which attributes hold files, and how they are downloaded; `nil`: none.
  package var files: FileDownloads?
  /// Keys of Parse `Relation` fields whose members are synced too: for each object of a page, its members are
  /// asked for (`where={"$relatedTo":…}`), written into the staged page as an array of pointers, and imported as
  /// the object's whole to-many list (members removed on the server are removed here). Parse bumps an object's
  /// `updatedAt` when its relation changes. One request per object and relation (more past 1000 members).
  package var relations: [String]

  /// A class to sync with `mapping`; `pageSize` is clamped to 1…1000.
  public init(
    className: String, mapping: ImportMapping, pageSize: Int = 100, files: FileDownloads? = nil,
    relations: [String] = []
  ) {
    self.className = className
    self.mapping = mapping
    self.pageSize = min(max(pageSize, 1), 1000)
    self.files = files
    self.relations = relations
  }
}

/// Incremental sync of Parse Server classes into the store, through the mapping importer.
///
/// For each class, in an order where the classes an object points to come first (`orderedByPointers(_:)`;
/// placeholders keep any order correct, this only saves rewriting them):
/// 1. Pages staged by an interrupted run are imported first, oldest first.
/// 2. Then the next page after the class's cursor is requested (`ParseServer/queryURL(className:after:limit:)`):
///    objects changed after the last one imported, ordered by `updatedAt,objectId`.
/// 3. A complete, valid page is **staged** (`sync_page`, one transaction) before anything is imported, so a crash
///    between download and import loses nothing: the next run imports it.
/// 4. The staged page is imported with the mapping, and in the **same transaction** the class's cursor moves to the
///    page's last object and the staged page is deleted: a page is imported exactly once, the cursor never passes an
///    object that was not imported, and a second run after an interrupted one finishes the job without duplicates.
/// 5. Until a page comes back empty (a short page is not taken as the end: a server may cap `limit` lower than
///    asked).
///
/// A failed, truncated or error response is never staged and moves nothing. Objects that cannot be imported are
/// reported and skipped (their page is still done). Deletions on the server are not seen by an `updatedAt` cursor
/// (Parse keeps no tombstones). The engine's own state is in `SyncBookkeeping`; open the storage context with
/// `SyncBookkeeping/entities` besides the mappings' entities.
public struct ParseSyncEngine: Sendable {
  /// The configured source's name: cursors and staged pages are kept per source and class.
  package var source: String
  /// The Parse Server asked, with its application ID and keys.
  package var server: ParseServer
  /// The classes synced, in an order where a class comes after the classes its objects point to.
  package var classes: [ParseClassSync]
  /// Where pages are staged and imported, opened with ``bookkeepingEntities`` and the mappings' entities.
  package let storage: StorageContext
  /// How the server and its files are asked (its keys redacted from every error).
  package let transport: any HTTPTransport
  /// Where eager downloads go (see `FileStore`); `nil` disables file downloads.
  package var fileFolder: URL?
  /// Called after each page is staged, before it is imported: a fault-injection point for tests and tools
  /// (the crash tests' `news-with-fault kill-after-stage sync …` kills itself there). Throwing stops the class's
  /// sync.
  package var pageStaged: @Sendable (SyncBookkeeping.StagedPage) async throws -> Void = { _ in }
  /// The clock (`syncedAt`, import times).
  package var now: @Sendable () -> Date = { Date() }
  /// `error`, thrown by a call of the storage context, as the ``StorageError`` it is; anything else (a test seam's
  /// error) as `.other`.
  private func storageError(_ error: any Error) -> StorageError {
    (error as? StorageError) ?? StorageError(kind: .other, path: storage.path)
  }

  /// The query key the articles of a sync source are saved under (every page adds to its result list), so that
  /// the repository serves them as it serves any source: `news-source:NAME`.
  package static func articleQuery(source: String) -> String {
    "news-source:" + (source.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? source)
  }

  /// The entities the engine keeps its bookkeeping in (staged pages, cursors, downloaded files): open the storage
  /// context with them beside the mapping's, `StorageContext(path:entities:)` with
  /// `mapping.entityDescriptions + ParseSyncEngine.bookkeepingEntities`.
  public static var bookkeepingEntities: [EntityDescription] { SyncBookkeeping.entities }

  /// Start every class from the beginning instead of its stored cursor (`news sync --full`): everything is asked
  /// for again and upserted (unchanged rows are not rewritten); the cursor then moves on as usual.
  public var fromTheBeginning = false
  /// With ``fromTheBeginning``: once a class has been read to its end in this run, delete its rows whose `objectId`
  /// the server did not list (objects deleted on the server: Parse keeps no tombstones, so an incremental sync never
  /// sees them). Scoped to the class's entity; skipped when the run stops early (`news sync --full --delete-missing`).
  public var deleteMissing = false

  /// An engine for `source` that syncs `classes` (reordered so that pointed-to classes come first) from `server`
  /// into `storage` through `transport`; files go under `fileFolder` (`nil`: no file downloads).
  public init(
    source: String, server: ParseServer, classes: [ParseClassSync], storage: StorageContext,
    transport: any HTTPTransport, fileFolder: URL? = nil
  ) {
    self.source = source
    self.server = server
    self.classes = Self.orderedByPointers(classes)
    self.storage = storage
    self.transport = transport
    self.fileFolder = fileFolder
  }

  /// `classes` ordered so that a class comes after the classes its objects point to (to-one and to-many
  /// relationships of its mapping's root entity), keeping the given order otherwise; cycles keep the given order.
  package static func orderedByPointers(_ classes: [ParseClassSync]) -> [ParseClassSync] {
    let classOfEntity = Dictionary(
      classes.map { ($0.mapping.rootEntity, $0.className) }, uniquingKeysWith: { first, _ in first })
    var remaining = classes
    var ordered: [ParseClassSync] = []
    while !remaining.isEmpty {
      let placed = Set(ordered.map(\.className))
      let index =
        remaining.firstIndex { candidate in
          let targets =
            candidate.mapping.entity(candidate.mapping.rootEntity)?.entity.relationships.map(\.destination)
            ?? []
          return targets.compactMap { classOfEntity[$0] }.allSatisfy {
            $0 == candidate.className || placed.contains($0)
          }
        } ?? 0
      ordered.append(remaining.remove(at: index))
    }
    return ordered
  }

  /// Syncs every class; a class that fails does not stop the others.
  ///
  /// - Parameter progress: called after each imported page.
  /// - Returns: the report, with each class's counts and error (also stored as the class's `lastError`).
  public func sync(progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) async -> SyncReport {
    var report = SyncReport()
    for item in classes {
      var part = SyncReport.ClassReport(className: item.className, entity: item.mapping.rootEntity)
      do {
        try await sync(item, into: &part, progress: progress)
        if let files = item.files, files.mode == .eager, let folder = fileFolder {
          await downloadMissingFiles(item, files, folder, into: &part)
        }
      } catch {
        part.error = error.description
        part.errorKind = error.kind
        let record = SyncBookkeeping.errorRecord(source, item.className, error.description, at: Timestamp(now()))
        _ = try? await storage.save(ChangeSet(upserts: [record]))
      }
      if let cursor = try? await SyncBookkeeping.cursor(
        source: source, className: item.className, server: server.serverURL.absoluteString, in: storage)
      {
        part.cursor = cursor.description
      }
      report.classes.append(part)
    }
    return report
  }

  private func sync(
    _ item: ParseClassSync, into part: inout SyncReport.ClassReport,
    progress: @Sendable (SyncProgress) -> Void
  ) async throws(SyncError) {
    let name = item.className
    let staged: [SyncBookkeeping.StagedPage]
    do {
      staged = try await SyncBookkeeping.stagedPages(source, name, in: storage)
    } catch {
      throw .storage(className: name, storageError(error))
    }
    let root = item.mapping.rootEntity
    let pruning = fromTheBeginning && deleteMissing
    // The identity of the row an objectId becomes: the objectId itself, or for the built-in article its objectId
    // scoped by the mapping's key rule; and the rows of this class that a full read may prune.
    let rootMapping = item.mapping.entity(root)
    let identify: (String) -> Identity
    let scope: FetchPredicate
    if let rule = rootMapping?.articleKey, rule.id == [JSONPath("objectId")], rule.link.isEmpty {
      let articleScope = rule.scope ?? "\(source)/\(name)"
      identify = { Identity(.text(ArticleIdentity.scoped(articleScope, id: $0).absoluteString)) }
      scope = FetchPredicate.attribute("source") == source
    } else {
      identify = { Identity(.text($0)) }
      scope = FetchPredicate.attribute("objectId").isNotNull
      if pruning, rootMapping?.entity.identity != ["objectId"] {
        throw .importFailed(
          className: name, detail: "deleting missing objects needs \(root) identified by objectId")
      }
    }
    var seen: Set<Identity> = []
    func note(_ json: JSONValue) {
      guard pruning else { return }
      for case .object(let fields) in Self.results(json) ?? [] {
        if case .string(let id)? = fields["objectId"] { seen.insert(identify(id)) }
      }
    }
    for page in staged {
      let json: JSONValue
      do {
        json = try JSONValue.parse(page.body)
      } catch {
        throw .invalidPage(className: name, detail: "staged page \(page.sequence): \(error)")
      }
      try await importPage(page, json: json, item, into: &part)
      note(json)
      part.resumedPages += 1
      progress(SyncProgress(className: name, pages: part.pages + part.resumedPages, objects: part.objects))
    }
    // The stored cursor once (after the staged pages moved it); then each imported page's end.
    var cursor: SyncCursor?
    if !fromTheBeginning {
      do {
        cursor = try await SyncBookkeeping.cursor(
          source: source, className: name, server: server.serverURL.absoluteString, in: storage)
      } catch {
        throw .storage(className: name, storageError(error))
      }
    }
    while true {
      try Self.checkCancellation(name)
      let url = server.queryURL(className: name, after: cursor, limit: item.pageSize)
      let response: HTTPResponse
      do {
        response = try await transport.send(
          HTTPRequest(url: url, headers: server.headers, maxBodyBytes: item.maxPageBytes, secrets: server.secrets))
      } catch {
        throw .network(className: name, error)
      }
      var (json, end) = try Self.validPage(response, className: name, after: cursor, secrets: server.secrets)
      guard let end else {
        // An empty page: done. The class is up to date now (and its last error, if any, is over).
        do {
          let record = SyncBookkeeping.syncedRecord(source, name, at: Timestamp(now()))
          var changes = ChangeSet(upserts: [record])
          if pruning {
            changes.deleteMissing = [
              MissingRowsDeletion(entity: root, scope: scope, keep: seen)
            ]
          }
          part.deleted += try await storage.save(changes)[root]?.deleted ?? 0
        } catch {
          throw .storage(className: name, storageError(error))
        }
        return
      }
      var body = response.body
      if !item.relations.isEmpty {
        json = try await withRelationMembers(json, item)
        body = Data(json.jsonText.utf8)
      }
      let page: SyncBookkeeping.StagedPage
      do {
        let sequence = try await SyncBookkeeping.nextSequence(source, name, in: storage)
        page = SyncBookkeeping.StagedPage(source: source, className: name, sequence: sequence, body: body, end: end)
        _ = try await storage.save(ChangeSet(upserts: [page.record]))
      } catch {
        throw .storage(className: name, storageError(error))
      }
      do {
        try await pageStaged(page)
      } catch {
        throw .storage(className: name, storageError(error))
      }
      try await importPage(page, json: json, item, into: &part)
      cursor = page.end
      note(json)
      part.pages += 1
      progress(SyncProgress(className: name, pages: part.pages + part.resumedPages, objects: part.objects))
    }
  }

  /// Imports a staged page, moves the cursor and drops the page, in one transaction; then downloads its files when
  /// they are eager.
  private func importPage(
    _ page: SyncBookkeeping.StagedPage, json: JSONValue, _ item: ParseClassSync,
    into part: inout SyncReport.ClassReport
  ) async throws(SyncError) {
    let name = item.className
    let bookkeeping = ChangeSet(
      upserts: [
        SyncBookkeeping.cursorRecord(
          source, name, page.end, server: server.serverURL.absoluteString, syncedAt: Timestamp(now()))
      ],
      deletes: [(entity: SyncBookkeeping.page.name, identity: page.identity)])
    var options = Importer.Options(importTime: Timestamp(now()))
    options.additionalChanges = bookkeeping
    options.articleFetch = ArticleFetch(
      query: Self.articleQuery(source: source), source: source, fetchedAt: Timestamp(now()), accumulates: true)
    let report: ImportReport
    do throws(ImportFailure) {
      report = try await Importer(mapping: item.mapping).run(
        json, into: storage, source: "\(source)/\(name)", options: options)
    } catch {
      switch error {
      case .input(let error): throw .importFailed(className: name, detail: error.description)
      case .storage(let error): throw .storage(className: name, error)
      case .cancelled: throw .storage(className: name, StorageError(kind: .cancelled, path: storage.path))
      }
    }
    part.objects += Self.results(json)?.count ?? 0
    part.inserted += report.inserted
    part.updated += report.updated
    part.unchanged += report.unchanged
    part.failed += report.failed + report.skipped
    part.remembered += report.remembered
    part.rememberedEvicted += report.rememberedEvicted
    part.errors += report.failures
    part.warnings += report.warnings
    if let files = item.files, files.mode == .eager, let folder = fileFolder {
      await download(Self.fileURLs(in: json, attributes: files.attributes), files, folder, into: &part)
    }
  }

  /// Files whose download failed in an earlier run (kept in ``SyncBookkeeping/file``): retried after each successful
  /// sync of the class, at most ``maxFileRetries`` per run, without scanning the class's rows.
  private func downloadMissingFiles(
    _ item: ParseClassSync, _ policy: FileDownloads, _ folder: URL, into part: inout SyncReport.ClassReport
  ) async {
    let failed =
      (try? await SyncBookkeeping.failedFiles(
        source: source, className: item.className, limit: Self.maxFileRetries, in: storage)) ?? []
    let missing = failed.filter { !part.filesTried.contains($0) }
    guard !missing.isEmpty else { return }
    await download(missing, policy, folder, into: &part, retrying: true)
  }

  /// The most failed files retried per class and run.
  package static let maxFileRetries = 500

  /// Downloads what is not stored yet, at most ``FileDownloads/concurrency`` at once, and records each failure in
  /// ``SyncBookkeeping/file`` for the next sync to retry; when `retrying` those records, forgets the ones now stored.
  private func download(
    _ urls: [URL], _ policy: FileDownloads, _ folder: URL, into part: inout SyncReport.ClassReport,
    retrying: Bool = false
  ) async {
    let store = FileStore(folder: folder, policy: policy, transport: transport)
    part.filesTried.formUnion(urls)
    var pending = urls.filter { !store.isStored($0) }
    part.filesPresent += urls.count - pending.count
    var outcomes: [(url: URL, error: String?)] = []
    await withTaskGroup(of: (URL, String?).self) { group in
      var running = 0
      while !pending.isEmpty || running > 0 {
        while running < policy.concurrency, !pending.isEmpty {
          let url = pending.removeFirst()
          running += 1
          group.addTask {
            do {
              try await store.file(for: url)
              return (url, nil)
            } catch {
              return (url, "\(error)")
            }
          }
        }
        guard let outcome = await group.next() else { break }
        running -= 1
        outcomes.append(outcome)
      }
    }
    part.filesDownloaded += outcomes.filter { $0.error == nil }.count
    part.fileErrors += outcomes.compactMap(\.error)
    let recorded = retrying ? urls.map { url in (url: url, error: outcomes.first { $0.url == url }?.error) } : outcomes
    let changes = SyncBookkeeping.fileChanges(
      source: source, className: part.className, recorded.filter { retrying || $0.error != nil }, at: Timestamp(now()))
    if !changes.upserts.isEmpty || !changes.deletes.isEmpty { _ = try? await storage.save(changes) }
  }

  // MARK: - Relations

  /// The page with each object's `Relation` fields (those of ``ParseClassSync/relations``) replaced by the array of
  /// its members' pointers, asked for with `$relatedTo` (Parse REST, "Relational Queries").
  private func withRelationMembers(_ json: JSONValue, _ item: ParseClassSync) async throws(SyncError) -> JSONValue {
    guard case .object(var root) = json, case .array(var objects)? = root["results"] else { return json }
    for index in objects.indices {
      guard case .object(var fields) = objects[index], case .string(let objectId)? = fields["objectId"] else {
        continue
      }
      for key in item.relations {
        guard case .object(let relation)? = fields[key], case .string("Relation")? = relation["__type"],
          case .string(let target)? = relation["className"]
        else { continue }
        let members = try await relationMembers(of: item.className, objectId, key: key, target: target)
        fields[key] = .array(
          members.map {
            .object(["__type": .string("Pointer"), "className": .string(target), "objectId": .string($0)])
          })
      }
      objects[index] = .object(fields)
    }
    root["results"] = .array(objects)
    return .object(root)
  }

  /// The `objectId`s of the members of relation `key` of one object, in `objectId` order, 1000 per request.
  private func relationMembers(of className: String, _ objectId: String, key: String, target: String)
    async throws(SyncError) -> [String]
  {
    var members: [String] = []
    while true {
      let url = server.relationURL(
        className: className, objectId: objectId, key: key, target: target, after: members.last, limit: 1000)
      let response: HTTPResponse
      do {
        response = try await transport.send(
          HTTPRequest(url: url, headers: server.headers, maxBodyBytes: 64_000_000, secrets: server.secrets))
      } catch {
        throw .network(className: className, error)
      }
      let (json, _) = try Self.validPage(response, className: className, after: nil, secrets: server.secrets)
      let ids = (Self.results(json) ?? []).compactMap { object -> String? in
        guard case .object(let fields) = object, case .string(let id)? = fields["objectId"] else { return nil }
        return id
      }
      members += ids
      if ids.count < 1000 || ids.isEmpty { return members }
    }
  }

  // MARK: - Pages

  static func results(_ json: JSONValue) -> [JSONValue]? {
    guard case .array(let items)? = json[path: JSONPath("results")] else { return nil }
    return items
  }

  /// The page's JSON and the cursor after its last object in the server's order (`nil` for an empty page), or why
  /// it is not a page.
  ///
  /// The server's order decides, not ours: a server may collate `objectId`s differently (PostgreSQL under a
  /// case-insensitive collation), so the cursor is the page's last object, and the only progress check is that the
  /// page does not end at or before the cursor's instant with the cursor's own object.
  static func validPage(
    _ response: HTTPResponse, className name: String, after cursor: SyncCursor?, secrets: [String] = []
  ) throws(SyncError) -> (JSONValue, SyncCursor?) {
    if let bytes = response.bodyLimitExceeded {
      throw .invalidPage(className: name, detail: "the response is over the limit (\(bytes) bytes or more)")
    }
    guard (200..<300).contains(response.status) else {
      throw serverError(response, className: name, secrets: secrets)
    }
    let json: JSONValue
    do {
      json = try JSONValue.parse(response.body)
    } catch {
      throw .invalidPage(className: name, detail: "\(error) (\(response.body.count) bytes)")
    }
    guard let items = results(json) else {
      // Parse answers some errors (Cloud Code triggers) with a 200 and {"code":…,"error":…}.
      if case .object(let fields) = json, case .integer = fields["code"], case .string = fields["error"] {
        throw serverError(response, className: name, secrets: secrets)
      }
      throw .invalidPage(className: name, detail: "no \"results\" array")
    }
    guard !items.isEmpty else { return (json, nil) }
    guard let end = items.last(where: { objectCursor($0) != nil }).flatMap(objectCursor) else {
      throw .invalidPage(className: name, detail: "no object has both an objectId and an updatedAt")
    }
    if let cursor,
      end.updatedAtMilliseconds < cursor.updatedAtMilliseconds
        || (end.updatedAtMilliseconds == cursor.updatedAtMilliseconds && end.objectId == cursor.objectId)
    {
      throw .invalidPage(
        className: name, detail: "the server answered objects at or before the cursor (\(cursor)): is `where` ignored?")
    }
    return (json, end)
  }

  /// A non-2xx answer (or a 2xx Parse error body) as a ``SyncError/server(className:status:code:message:)``: Parse's
  /// `code` and `error` when the body has them, else the start of the body; secrets redacted before any cut.
  static func serverError(_ response: HTTPResponse, className name: String, secrets: [String]) -> SyncError {
    var code: Int?
    let text = Redaction.redacted(String(decoding: response.body.prefix(64 * 1024), as: UTF8.self), secrets: secrets)
    var message = String(text.split(whereSeparator: \.isNewline).joined(separator: " ").prefix(200))
    if let json = try? JSONValue.parse(response.body), case .object(let fields) = json {
      if case .integer(let value)? = fields["code"] { code = Int(value) }
      if case .string(let text)? = fields["error"] { message = text }
    }
    if (300..<400).contains(response.status), let location = response.header("Location").map(HTTPFieldText.uriReference)
    {
      message = "a redirect to another origin is not followed (\(String(NewsQuery.shown(location).prefix(200))))"
    }
    message = Redaction.redacted(message, secrets: secrets)
    return .server(className: name, status: response.status, code: code, message: message)
  }

  /// An object's place in the server's order: its `updatedAt` (text or a Parse `Date`) and `objectId`.
  static func objectCursor(_ object: JSONValue) -> SyncCursor? {
    guard case .object(let fields) = object, case .string(let objectId)? = fields["objectId"] else { return nil }
    let iso: String
    switch fields["updatedAt"] {
    case .string(let text)?: iso = text
    case .object(let date)?:
      guard case .string("Date")? = date["__type"], case .string(let text)? = date["iso"] else { return nil }
      iso = text
    default: return nil
    }
    guard let instant = Timestamp(rfc3339: iso) else { return nil }
    return SyncCursor(updatedAt: iso, updatedAtMilliseconds: instant.millisecondsSince1970, objectId: objectId)
  }

  /// The file URLs of a page's objects under `attributes`: a Parse `File`'s `url`, or a URL text.
  static func fileURLs(in json: JSONValue, attributes: [String]) -> [URL] {
    var urls: [URL] = []
    var seen: Set<URL> = []
    for case .object(let fields) in results(json) ?? [] {
      for attribute in attributes {
        var text: String?
        switch fields[attribute] {
        case .string(let value)?: text = value
        case .object(let file)?:
          if case .string(let value)? = file["url"] { text = value }
        default: break
        }
        if let text, let url = URL(string: text), url.scheme != nil, seen.insert(url).inserted { urls.append(url) }
      }
    }
    return urls
  }

  private static func checkCancellation(_ name: String) throws(SyncError) {
    if Task.isCancelled { throw .network(className: name, .transport(.other, detail: "cancelled")) }
  }
}
