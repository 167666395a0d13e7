extension EntityDescription {
  /// The built-in `article` entity (migrations 1, 2, 6, 8, 9, 11 and 15), described as apps describe theirs.
  ///
  /// Identity `url`. `isRead` and `bookmarkedAt` are local-only: a refresh never overwrites them.
  package static let article = EntityDescription(
    name: "article", identity: ["url"],
    attributes: [
      Attribute("url", .text), Attribute("title", .text, optional: false), Attribute("author", .text),
      Attribute("summary", .text), Attribute("imageURL", .url), Attribute("publishedAt", .date, optional: false),
      Attribute("content", .text), Attribute("sourceID", .text), Attribute("sourceName", .text),
      Attribute("fetchedAt", .date, optional: false), Attribute("fetchQuery", .text, optional: false),
      Attribute("link", .url), Attribute("source", .text), Attribute("tags", .json), Attribute("enclosures", .json),
      // The whole article fetched from its page (migration 9): written by its own save, never by a source's.
      Attribute("fullTextHTML", .text, localOnly: true), Attribute("fullText", .text, localOnly: true),
      Attribute("fullTextAt", .date, localOnly: true), Attribute("fullTextError", .text, localOnly: true),
      Attribute("handle", .text, localOnly: true),  // derived from the key by the writer; never from a source
      // The search text of an HTML summary and content (migration 11): derived by the feed decoder, written by the
      // article writer with the fields it comes from; never mapped from a source's record.
      Attribute("summaryText", .text, localOnly: true), Attribute("contentText", .text, localOnly: true),
      // The feed item's own identifier scoped to its feed (migration 15): derived by the feed decoder, written by
      // the article writer (kept once set), never mapped from a source's record.
      Attribute("itemID", .text, localOnly: true),
      Attribute("isRead", .bool, optional: false, localOnly: true, default: .integer(0)),
      Attribute("bookmarkedAt", .date, localOnly: true),
    ],
    indexes: [
      EntityIndex("article_by_publishedAt", on: ["publishedAt", "url"]),
      EntityIndex("article_by_fetchedAt", on: ["fetchedAt"]),
      // Partial in the table (`WHERE bookmarkedAt IS NOT NULL`, migration 2): only bookmarked rows are in it.
      EntityIndex("article_by_bookmarkedAt", on: ["bookmarkedAt"]),
      EntityIndex("article_by_source", on: ["source", "publishedAt"]),
      EntityIndex("article_by_handle", on: ["handle"]),
      // Partial in the table (`WHERE itemID IS NOT NULL`, migration 15).
      EntityIndex("article_by_itemID", on: ["itemID"]),
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
