extension EntityDescription {
  /// The built-in `article` entity (migrations 1 and 2), described as apps describe theirs.
  ///
  /// Identity `url`. `isRead` and `bookmarkedAt` are local-only: a refresh never overwrites them.
  public static let article = EntityDescription(
    name: "article", identity: ["url"],
    attributes: [
      Attribute("url", .text), Attribute("title", .text, optional: false), Attribute("author", .text),
      Attribute("summary", .text), Attribute("imageURL", .url), Attribute("publishedAt", .date, optional: false),
      Attribute("content", .text), Attribute("sourceID", .text), Attribute("sourceName", .text),
      Attribute("fetchedAt", .date, optional: false), Attribute("fetchQuery", .text, optional: false),
      Attribute("isRead", .bool, optional: false, localOnly: true, default: .integer(0)),
      Attribute("bookmarkedAt", .date, localOnly: true),
    ],
    indexes: [
      Index("article_by_publishedAt", on: ["publishedAt", "url"]),
      Index("article_by_fetchedAt", on: ["fetchedAt"]),
    ])
}
