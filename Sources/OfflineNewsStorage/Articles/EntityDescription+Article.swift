extension EntityDescription {
  /// The built-in `article` entity (migrations 1, 2, 6, 8, 9, 11, 15, 17, 18, 20 and 24), described as apps describe
  /// theirs.
  ///
  /// Identity `url`. Its attributes are the columns declared in ``ArticleColumn/all``. `isRead` and `bookmarkedAt`
  /// are local-only: a refresh never overwrites them.
  package static let article = EntityDescription(
    name: "article", identity: ["url"],
    attributes: ArticleColumn.all.map(\.attribute),
    indexes: [
      EntityIndex("article_by_publishedAt", on: ["publishedAt", "url"]),
      EntityIndex("article_by_fetchedAt", on: ["fetchedAt"]),
      // Partial in the table (`WHERE bookmarkedAt IS NOT NULL`, migration 2): only bookmarked rows are in it.
      EntityIndex("article_by_bookmarkedAt", on: ["bookmarkedAt"]),
      EntityIndex("article_by_source", on: ["source", "publishedAt"]),
      EntityIndex("article_by_handle", on: ["handle"]),
      // Partial in the table (`WHERE itemID IS NOT NULL`, migration 15).
      EntityIndex("article_by_itemID", on: ["itemID"]),
      // Migration 17: a source's total and unread counts from the index alone.
      EntityIndex("article_by_source_read", on: ["source", "isRead"]),
      // Migration 18: the arrival order of the Reader API's streams (`firstSeenAt DESC, publishedAt DESC, url`).
      EntityIndex("article_by_firstSeenAt", on: ["firstSeenAt", "publishedAt", "url"]),
      // Migration 20: the sync APIs' ids a client sends back.
      EntityIndex("article_by_servedID", on: ["servedID"]),
    ])
}

extension EntityDescription {
  /// This description with the attributes, relationships and indexes of `other` that it lacks (by name) added:
  /// how a mapping extends the built-in `article` with attributes of its own (Parse's `category`, say), and how
  /// those extensions, recorded in `schema_entity`, stay declared when the store is opened without that mapping.
  package func extended(with other: EntityDescription) -> EntityDescription {
    var result = self
    for attribute in other.attributes where result.attribute(attribute.name) == nil {
      result.attributes.append(attribute)
    }
    for relationship in other.relationships where result.relationship(relationship.name) == nil {
      result.relationships.append(relationship)
    }
    for index in other.indexes where !result.indexes.contains(where: { $0.name == index.name }) {
      result.indexes.append(index)
    }
    return result
  }
}
