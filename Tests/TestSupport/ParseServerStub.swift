import Foundation
import Synchronization

/// A Parse Server on 127.0.0.1 for sync tests: classes of objects answered as the Parse REST API answers
/// `GET /parse/classes/<Class>?where=…&order=updatedAt,objectId&limit=N` (and `/parse/users` for `_User`), with the
/// `where` forms the sync engine sends (`$or` of `updatedAt` `$gt` a Date, and `updatedAt` equal with `objectId`
/// `$gt`), an application id check, a server-side cap on `limit`, files under `/files/…`, and faults injected per
/// request. Every request is recorded by the underlying ``LoopbackHTTPServer``.
public final class ParseServerStub: Sendable {
  public let http: LoopbackHTTPServer
  public let applicationID: String
  private let box = Box()

  final class Box: Sendable {
    let state = Mutex(State())
  }

  struct State {
    var classes: [String: [StoredObject]] = [:]
    var files: [String: (contentType: String, body: Data)] = [:]
    var injected: [LoopbackHTTPServer.Behaviour] = []
    var maxLimit = 1000
    var ignoreWhere = false
    var caseInsensitive = false
    var failing: LoopbackHTTPServer.Behaviour?
    /// `"Class|objectId|key"` → member objectIds.
    var relations: [String: Set<String>] = [:]
  }

  struct StoredObject {
    var objectId: String
    var updatedAtMs: Int64
    var json: Data
  }

  public init(applicationID: String = "test-app") throws {
    http = try LoopbackHTTPServer(.respond(status: 404, body: Data(#"{"code":119,"error":"no route"}"#.utf8)))
    self.applicationID = applicationID
    let box = self.box
    let appID = applicationID
    http.router = { request in Self.route(request, box: box, applicationID: appID) }
  }

  deinit { http.stop() }

  /// `http://127.0.0.1:<port>/parse`.
  public var serverURL: URL { http.url("/parse") }

  /// Adds or replaces an object of `className`. `fields` are JSON values (`Any` from JSONSerialization's vocabulary);
  /// `objectId` and `updatedAt` (RFC 3339 text, Parse's form) are set from the arguments.
  public func put(_ className: String, objectId: String, updatedAt: String, fields: [String: Any] = [:]) {
    var object = fields
    object["objectId"] = objectId
    object["updatedAt"] = updatedAt
    if object["createdAt"] == nil { object["createdAt"] = updatedAt }
    let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    let ms = Self.milliseconds(updatedAt) ?? 0
    box.state.withLock { state in
      var objects = state.classes[className, default: []]
      objects.removeAll { $0.objectId == objectId }
      objects.append(StoredObject(objectId: objectId, updatedAtMs: ms, json: json))
      state.classes[className] = objects
    }
  }

  /// Deletes an object of `className` (Parse keeps no trace of it).
  public func remove(_ className: String, objectId: String) {
    box.state.withLock { $0.classes[className]?.removeAll { $0.objectId == objectId } }
  }

  /// Sets the members of relation `key` of object `objectId` of `className` (objects of another class), as Parse
  /// keeps them for `$relatedTo` queries. (Parse bumps the owner's `updatedAt` when they change: `put` it again.)
  public func relate(_ className: String, _ objectId: String, key: String, members: Set<String>) {
    box.state.withLock { $0.relations["\(className)|\(objectId)|\(key)"] = members }
  }

  /// Serves `body` at `/files/<name>` with `contentType`; returns its URL.
  @discardableResult
  public func putFile(_ name: String, contentType: String, body: Data) -> URL {
    box.state.withLock { $0.files["/files/" + name] = (contentType, body) }
    return http.url("/files/" + name)
  }

  /// The next requests get these behaviours, one each, before the stub answers normally again.
  public func inject(_ behaviours: LoopbackHTTPServer.Behaviour...) {
    box.state.withLock { $0.injected += behaviours }
  }

  /// The most objects one response holds, whatever `limit` asks (Parse Server's `maxLimit`).
  public var maxLimit: Int {
    get { box.state.withLock { $0.maxLimit } }
    set { box.state.withLock { $0.maxLimit = newValue } }
  }

  /// While set, every request gets this behaviour (after any injected ones): a server that is down for a while.
  public var failing: LoopbackHTTPServer.Behaviour? {
    get { box.state.withLock { $0.failing } }
    set { box.state.withLock { $0.failing = newValue } }
  }

  /// Compare and sort `objectId`s ignoring letter case, as PostgreSQL does under a case-insensitive collation.
  public var caseInsensitiveObjectIds: Bool {
    get { box.state.withLock { $0.caseInsensitive } }
    set { box.state.withLock { $0.caseInsensitive = newValue } }
  }

  /// Answer every query as if it had no `where` (a broken server), to test the engine's guard.
  public var ignoreWhere: Bool {
    get { box.state.withLock { $0.ignoreWhere } }
    set { box.state.withLock { $0.ignoreWhere = newValue } }
  }

  /// The class queries received, as (class, decoded `where` text or nil, limit).
  public var queries: [(className: String, whereClause: String?, limit: Int?)] {
    http.requests.compactMap { request in
      guard let (className, items) = Self.classQuery(request.target) else { return nil }
      return (className, items["where"], items["limit"].flatMap { Int($0) })
    }
  }

  // MARK: - Routing

  static func route(_ request: LoopbackHTTPServer.Request, box: Box, applicationID: String)
    -> LoopbackHTTPServer.Behaviour?
  {
    if let injected = box.state.withLock({ $0.injected.isEmpty ? $0.failing : $0.injected.removeFirst() }) {
      return injected
    }
    let path = String(request.target.split(separator: "?", maxSplits: 1).first ?? "")
    if path.hasPrefix("/files/") {
      guard let file = box.state.withLock({ $0.files[path] }) else {
        return .respond(status: 404, body: Data("not found".utf8))
      }
      return .respond(status: 200, headers: ["Content-Type": file.contentType], body: file.body)
    }
    guard let (className, items) = classQuery(request.target) else { return nil }
    guard request.header("X-Parse-Application-Id") == applicationID else {
      return .json(#"{"error":"unauthorized"}"#, status: 403)
    }
    if let text = items["where"], let data = text.data(using: .utf8),
      let clause = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
      let related = clause["$relatedTo"] as? [String: Any]
    {
      return relationMembers(
        className, related, after: (clause["objectId"] as? [String: Any])?["$gt"] as? String,
        limit: items["limit"].flatMap { Int($0) } ?? 100, box: box)
    }
    var after: (Int64, String?)?
    if let text = items["where"], !box.state.withLock({ $0.ignoreWhere }) {
      guard let data = text.data(using: .utf8), let clause = try? JSONSerialization.jsonObject(with: data),
        let parsed = parseWhere(clause)
      else {
        return .json(#"{"code":102,"error":"Invalid where clause"}"#, status: 400)
      }
      after = parsed
    }
    let requested = items["limit"].flatMap { Int($0) } ?? 100
    let (objects, maxLimit, folding) = box.state.withLock {
      ($0.classes[className] ?? [], $0.maxLimit, $0.caseInsensitive)
    }
    let key = { (id: String) in folding ? id.lowercased() : id }
    let sorted = objects.sorted { ($0.updatedAtMs, key($0.objectId)) < ($1.updatedAtMs, key($1.objectId)) }
    let selected = sorted.filter { object in
      guard let (ms, objectId) = after else { return true }
      if let objectId { return (object.updatedAtMs, key(object.objectId)) > (ms, key(objectId)) }
      return object.updatedAtMs > ms
    }.prefix(min(requested, maxLimit))
    return results(selected)
  }

  /// The answer to `where={"$relatedTo":{"object":{…Pointer…},"key":…}}` on `className`: its member objects, in
  /// `objectId` order, after `after`.
  static func relationMembers(
    _ className: String, _ related: [String: Any], after: String?, limit: Int, box: Box
  ) -> LoopbackHTTPServer.Behaviour {
    guard let object = related["object"] as? [String: Any], let owner = object["className"] as? String,
      let ownerID = object["objectId"] as? String, let key = related["key"] as? String
    else { return .json(#"{"code":102,"error":"bad $relatedTo"}"#, status: 400) }
    let (members, objects) = box.state.withLock {
      ($0.relations["\(owner)|\(ownerID)|\(key)"] ?? [], $0.classes[className] ?? [])
    }
    let selected = objects.filter { object in
      members.contains(object.objectId) && (after.map { object.objectId > $0 } ?? true)
    }.sorted { $0.objectId < $1.objectId }.prefix(limit)
    return results(selected)
  }

  /// `{"results":[…]}` of `objects`, as Parse answers a query.
  static func results(_ objects: some Sequence<StoredObject>) -> LoopbackHTTPServer.Behaviour {
    var body = Data(#"{"results":["#.utf8)
    for (index, object) in objects.enumerated() {
      if index > 0 { body.append(contentsOf: Array(",".utf8)) }
      body.append(object.json)
    }
    body.append(contentsOf: Array("]}".utf8))
    return .respond(status: 200, headers: ["Content-Type": "application/json"], body: body)
  }

  /// The class and the decoded query items of a class query target, or `nil`.
  static func classQuery(_ target: String) -> (String, [String: String])? {
    guard let components = URLComponents(string: "http://stub" + target) else { return nil }
    let path = components.path
    let className: String
    if path.hasPrefix("/parse/classes/") {
      className = String(path.dropFirst("/parse/classes/".count))
    } else if path == "/parse/users" {
      className = "_User"
    } else {
      return nil
    }
    var items: [String: String] = [:]
    for item in components.queryItems ?? [] { items[item.name] = item.value }
    return (className, items)
  }

  /// `{"$or":[{"updatedAt":{"$gt":D}},{"updatedAt":D,"objectId":{"$gt":id}}]}` → (ms, id);
  /// `{"updatedAt":{"$gt":D}}` → (ms, nil). Anything else → nil.
  static func parseWhere(_ clause: Any) -> (Int64, String?)? {
    guard let object = clause as? [String: Any] else { return nil }
    if let alternatives = object["$or"] as? [[String: Any]], alternatives.count == 2,
      let gt = (alternatives[0]["updatedAt"] as? [String: Any])?["$gt"], let ms = date(gt),
      let equal = alternatives[1]["updatedAt"], date(equal) == ms,
      let objectId = (alternatives[1]["objectId"] as? [String: Any])?["$gt"] as? String
    {
      return (ms, objectId)
    }
    if let gt = (object["updatedAt"] as? [String: Any])?["$gt"], let ms = date(gt) { return (ms, nil) }
    return nil
  }

  static func date(_ value: Any) -> Int64? {
    guard let date = value as? [String: Any], date["__type"] as? String == "Date", let iso = date["iso"] as? String
    else { return nil }
    return milliseconds(iso)
  }

  static func milliseconds(_ iso: String) -> Int64? {
    guard let date = try? Date(iso, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) else {
      return (try? Date(iso, strategy: Date.ISO8601FormatStyle())).map {
        Int64(($0.timeIntervalSince1970 * 1000).rounded())
      }
    }
    return Int64((date.timeIntervalSince1970 * 1000).rounded())
  }
}
