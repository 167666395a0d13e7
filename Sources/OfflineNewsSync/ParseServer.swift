import Foundation

/// A Parse Server to sync from: its REST root, application id and keys.
///
/// Requests follow the Parse REST guide (<https://docs.parseplatform.org/rest/guide/#queries>): `GET
/// <serverURL>/classes/<ClassName>?where=…&order=…&limit=…` with the headers `X-Parse-Application-Id`,
/// `X-Parse-REST-API-Key` (when given) and `X-Parse-Session-Token` (when given). The built-in classes have their own
/// routes: `_User` → `users`, `_Role` → `roles`, `_Session` → `sessions`, `_Installation` → `installations`.
public struct ParseServer: Sendable, Hashable {
  /// The REST root, e.g. `https://parseapi.back4app.com` or `http://localhost:1337/parse`.
  package var serverURL: URL
  /// `X-Parse-Application-Id`.
  package var applicationID: String
  /// `X-Parse-REST-API-Key`; a secret, never printed (take it from the environment).
  package var restAPIKey: String?
  /// `X-Parse-Session-Token`, to read as a user; a secret, never printed.
  package var sessionToken: String?

  /// A server at `serverURL` (the REST root) for the app `applicationID`; empty keys count as none.
  public init(serverURL: URL, applicationID: String, restAPIKey: String? = nil, sessionToken: String? = nil) {
    self.serverURL = serverURL
    self.applicationID = applicationID
    self.restAPIKey = restAPIKey.flatMap { $0.isEmpty ? nil : $0 }
    self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The headers every request carries.
  package var headers: [String: String] {
    var headers = ["X-Parse-Application-Id": applicationID, "Accept": "application/json"]
    if let restAPIKey { headers["X-Parse-REST-API-Key"] = restAPIKey }
    if let sessionToken { headers["X-Parse-Session-Token"] = sessionToken }
    return headers
  }

  /// The secrets to keep out of every message.
  package var secrets: [String] { [restAPIKey, sessionToken].compactMap { $0 } }

  /// The route of `className`: `classes/<name>`, or the special route of a built-in class.
  package static func route(of className: String) -> String {
    switch className {
    case "_User": return "users"
    case "_Role": return "roles"
    case "_Session": return "sessions"
    case "_Installation": return "installations"
    default:
      // Not escaped here: the URL's path component is (escaping twice sent `%253A` for a `:`).
      return "classes/" + className.replacingOccurrences(of: "/", with: "_")
    }
  }

  /// The query for the members of relation `key` of object `objectId` of `className`, which are objects of
  /// `target`: `where={"$relatedTo":{"object":<pointer>,"key":key}}` (Parse REST, "Relational Queries"), only their
  /// `objectId`s, in `objectId` order, after `after` when given.
  package func relationURL(
    className: String, objectId: String, key: String, target: String, after: String?, limit: Int
  ) -> URL {
    var clause: [String: Any] = [
      "$relatedTo": [
        "object": ["__type": "Pointer", "className": className, "objectId": objectId], "key": key,
      ]
    ]
    if let after { clause["objectId"] = ["$gt": after] }
    let text =
      (try? JSONSerialization.data(withJSONObject: clause, options: [.sortedKeys]))
      .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    return self.url(
      route: Self.route(of: target),
      items: [
        URLQueryItem(name: "where", value: text), URLQueryItem(name: "keys", value: "objectId"),
        URLQueryItem(name: "order", value: "objectId"), URLQueryItem(name: "limit", value: "\(limit)"),
      ])
  }

  /// The query for the next page of `className` after `cursor` (all objects when `nil`), oldest change first.
  ///
  /// The cursor is a key set, not `skip`: objects with `updatedAt` after the cursor's, or equal to it with a greater
  /// `objectId`, ordered by `updatedAt,objectId`, so that objects sharing one `updatedAt` across a page boundary are
  /// neither skipped nor repeated, and objects changed during a sync are found by the next one. Dates are compared
  /// as Parse `Date` values (`{"__type":"Date","iso":…}`).
  package func queryURL(className: String, after cursor: SyncCursor?, limit: Int) -> URL {
    var items = [
      URLQueryItem(name: "order", value: "updatedAt,objectId"), URLQueryItem(name: "limit", value: "\(limit)"),
    ]
    if let cursor { items.insert(URLQueryItem(name: "where", value: cursor.whereClause), at: 0) }
    return url(route: Self.route(of: className), items: items)
  }

  /// `serverURL/route?items`, with `+` percent-encoded.
  private func url(route: String, items: [URLQueryItem]) -> URL {
    var url = serverURL
    for part in route.split(separator: "/") { url.appendPathComponent(String(part)) }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
    components.queryItems = (components.queryItems ?? []) + items
    // `+` in a query means a space to many servers: encode it (and keep `URLComponents`' other escapes).
    components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
    return components.url ?? url
  }
}

/// Where an incremental sync of one class stands: the `updatedAt` and `objectId` of the last object imported, in
/// the server's order (`updatedAt,objectId`).
package struct SyncCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// `updatedAt` as the server wrote it (RFC 3339, UTC, milliseconds in Parse's case).
  package var updatedAt: String
  /// The same instant in milliseconds since 1970 UTC, for ordering.
  package var updatedAtMilliseconds: Int64
  /// The object's `objectId`.
  package var objectId: String

  package static func < (lhs: SyncCursor, rhs: SyncCursor) -> Bool {
    (lhs.updatedAtMilliseconds, lhs.objectId) < (rhs.updatedAtMilliseconds, rhs.objectId)
  }

  package var description: String { "\(updatedAt) \(objectId)" }

  /// The `where` constraint for the objects after this cursor, as JSON text.
  package var whereClause: String {
    let date: [String: String] = ["__type": "Date", "iso": updatedAt]
    let clause: [String: Any] = [
      "$or": [
        ["updatedAt": ["$gt": date]],
        ["updatedAt": date, "objectId": ["$gt": objectId]],
      ]
    ]
    guard let data = try? JSONSerialization.data(withJSONObject: clause, options: [.sortedKeys]) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}
