import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// The records an article links to through the relationships a mapping gave the article entity (a Parse export's
/// `category` → `ArticleCategory`, `parseAuthor` → `_User`, `parseTags` through the `_Join:tags:Article` class).
public struct RelatedRecords: Sendable, Hashable {
  /// The relationship's name in the mapping, e.g. `parseTags`.
  public var relationship: String
  /// One label per linked record, in the relationship's order: its `name`, `title`, `username` or `label`
  /// attribute (the first the target entity has and the record fills), else its identity as text.
  public var labels: [String]
}

extension NewsRepository {
  /// The attributes tried, in order, for a linked record's label.
  static let relatedLabelAttributes = ["name", "title", "username", "label", "displayName"]

  /// What the article keyed `key` links to through the article entity's relationships (none for the built-in
  /// entity: only an import mapping adds them), each relationship with the labels of its records; relationships
  /// with no record linked are left out. Two reads per relationship: the article's record, then its targets.
  ///
  /// - Throws: ``NewsRepositoryError/storage(_:network:)``.
  public func relatedRecords(ofArticleKey key: String) async throws(NewsRepositoryError) -> [RelatedRecords] {
    let storage = self.storage
    return try await storing { () throws(StorageError) -> [RelatedRecords] in
      let article = try storage.entity(EntityDescription.article.name)
      guard !article.relationships.isEmpty,
        let record = try await storage.fetch(
          FetchRequest(entity: article.name, predicate: .compare("url", .equal, .text(key)), limit: 1)
        ).first
      else { return [] }
      var related: [RelatedRecords] = []
      for relationship in article.relationships {
        let ids: [DatabaseValue] =
          switch relationship.kind {
          case .toOne: [record.values[relationship.name] ?? .null].filter { $0 != .null }
          case .toMany: record.toMany[relationship.name] ?? []
          }
        guard !ids.isEmpty else { continue }
        let target = try storage.entity(relationship.destination)
        var labels = ids.map(Self.text)
        if target.identity.count == 1, let identity = target.identity.first,
          let label = Self.relatedLabelAttributes.first(where: { name in
            target.attributes.contains { $0.name == name && $0.type == .text }
          })
        {
          let records = try await storage.fetch(FetchRequest(entity: target.name, predicate: .isIn(identity, ids)))
          labels = ids.map { id in
            guard let found = records.first(where: { $0.values[identity] == id }),
              case .text(let text)? = found.values[label], !text.isEmpty
            else { return Self.text(id) }
            return text
          }
        }
        related.append(RelatedRecords(relationship: relationship.name, labels: labels))
      }
      return related
    }
  }

  /// An identity value as text.
  private static func text(_ value: DatabaseValue) -> String {
    switch value {
    case .text(let text): text
    case .integer(let number): String(number)
    case .real(let number): String(number)
    case .null: ""
    case .blob(let bytes): bytes.map { String(format: "%02x", $0) }.joined()
    }
  }
}
