import Foundation
import OfflineNewsModel

/// One column of the `article` table, declared once in ``all``: its attribute (name, type, optionality), how a save
/// writes it, how a stored value is read back into an ``Article``, and its field in `news … --json`.
///
/// Everything that lists the article's columns derives from ``all``: the schema (``EntityDescription/article``),
/// the article writer's bound columns, its upsert's `SET` and `WHERE` clauses and its bind order
/// (`ArticleWriter.appendContent`), the record writer's core set (what is not a mapping's extension column), the
/// reader's `SELECT` list and the places its row decoding reads (`StorageContext.article(_:)`, positions computed
/// from this list once; the hot reader reads each field directly, and `ArticleColumnTests` checks it agrees with
/// each column's ``read``), the decoding of a record's values (`ArticleWriter.article(from:firstSeen:)`, by name)
/// and the `--json` document. Adding a column is a declaration here plus a migration (docs/INTERNALS.md, "The
/// storage context").
package struct ArticleColumn: Sendable {
  /// How a save of a source's articles writes a column.
  package enum Write: Sendable, Equatable {
    /// The key (`url`): the row's identity, bound first.
    case key
    /// A source's field: overwritten by a save when it differs, and one of the values the upsert compares to tell
    /// an unchanged article from a changed one.
    case content
    /// Written on insert and filled where it was unknown, never changed (`coalesce`): an article keeps the source
    /// that brought it first, and its item identifier once set.
    case keptOnceSet
    /// Derived from the key, written on insert, never changed.
    case derived
    /// Derived from the article's ``content`` columns: written on insert and by an update that changes the content,
    /// never compared itself (it changes only with what it follows).
    case followsContent
    /// Bound by the save itself after each article's own values: when, and by which query, the row was written.
    case save
    /// Bound by the save itself after ``save``'s columns, its `fetchedAt`: written when the row is inserted (and where
    /// it is unknown), never changed by an update: when the store first saved the article.
    case firstSave
    /// Never written by a save: the reader's own state (read mark, bookmark) or a later step's (the whole text).
    case none
  }

  /// The column's attribute in the entity description: its name (the column name), type and optionality.
  package let attribute: Attribute
  /// How a save writes the column.
  package let write: Write
  /// The value a save binds for an article whose key text is `key`, with `source` the save's own (used when the
  /// article names none); `nil` for a column the save does not bind per article (``Write/save``, ``Write/none``).
  let value: (@Sendable (_ article: Article, _ key: String, _ source: String?) -> DatabaseValue)?
  /// Sets the column's field of an article from its stored value (`.null` when NULL); `nil` for a column no read
  /// returns. The article it is given already has its key (``all`` starts with `url`).
  let read: (@Sendable (_ article: inout Article, _ value: DatabaseValue) -> Void)?
  /// The field's name in an article of the `--json` document, and its value (`nil` prints `null`); `nil` for a
  /// column that is not printed.
  package let json: (name: String, value: @Sendable (Article) -> (any Encodable & Sendable)?)?

  /// The column's name.
  package var name: String { attribute.name }
}

extension ArticleColumn {
  /// Every column of the built-in `article` table, in declaration order (migrations 1, 2, 6, 8, 9, 11, 15, 18, 20 and 24): the
  /// key first. Identity `url`. Local-only columns (``Attribute/isLocalOnly``) are never mapped from a source's
  /// record; the search texts are the record writer's exception (`RecordWriter.searchTexts`).
  package static let all: [ArticleColumn] = [
    ArticleColumn(
      Attribute("url", .text), .key, value: { _, key, _ in .text(key) }, read: nil,
      json: ("id", { $0.url.absoluteString })),
    ArticleColumn(
      Attribute("title", .text, optional: false), .content, value: { article, _, _ in .text(article.title) },
      read: { $0.title = $1.textValue ?? "" }, json: ("title", { $0.title })),
    text(Attribute("author", .text), get: { $0.author }, set: { $0.author = $1 }),
    text(Attribute("summary", .text), get: { $0.summary }, set: { $0.summary = $1 }),
    ArticleColumn(
      Attribute("imageURL", .url), .content, value: { article, _, _ in article.imageURL.databaseValue },
      read: { $0.imageURL = $1.textValue.flatMap(URL.init(string:)) },
      json: ("imageURL", { $0.imageURL?.absoluteString })),
    ArticleColumn(
      Attribute("publishedAt", .date, optional: false), .content,
      value: { article, _, _ in .integer(Timestamp(article.publishedAt).millisecondsSince1970) },
      read: { $0.publishedAt = Timestamp(millisecondsSince1970: $1.integerValue ?? 0).date },
      json: ("publishedAt", { Timestamp($0.publishedAt).rfc3339String })),
    text(Attribute("content", .text), get: { $0.content }, set: { $0.content = $1 }),
    text(Attribute("sourceID", .text), get: { $0.sourceID }, set: { $0.sourceID = $1 }),
    text(Attribute("sourceName", .text), get: { $0.sourceName }, set: { $0.sourceName = $1 }),
    ArticleColumn(Attribute("fetchedAt", .date, optional: false), .save, value: nil, read: nil, json: nil),
    ArticleColumn(Attribute("fetchQuery", .text, optional: false), .save, value: nil, read: nil, json: nil),
    // `NULL` when the link is the key itself; read back as the key when the key is a link.
    ArticleColumn(
      Attribute("link", .url), .content,
      value: { article, key, _ in
        article.link.map { $0.absoluteString == key ? .null : .text($0.absoluteString) } ?? .null
      },
      read: { article, value in
        article.link =
          value.textValue.flatMap(URL.init(string:)) ?? (ArticleIdentity.isScoped(article.url) ? nil : article.url)
      },
      json: ("url", { $0.displayURL?.absoluteString })),
    ArticleColumn(
      Attribute("source", .text), .keptOnceSet,
      value: { article, _, source in (article.source ?? source).databaseValue },
      read: { $0.source = $1.textValue }, json: ("source", { $0.source.map(NewsQuery.shown) })),
    ArticleColumn(
      Attribute("tags", .json), .content,
      value: { article, _, _ in article.tags.isEmpty ? .null : .text(ArticleJSON.encode(article.tags)) },
      read: { $0.tags = ArticleJSON.tags($1.textValue) }, json: ("tags", { $0.tags })),
    ArticleColumn(
      Attribute("enclosures", .json), .content,
      value: { article, _, _ in
        article.enclosures.isEmpty ? .null : .text(ArticleJSON.encode(article.enclosures))
      },
      read: { $0.enclosures = ArticleJSON.enclosures($1.textValue) }, json: ("enclosures", { $0.enclosures })),
    // The whole article fetched from its page (migration 9): written by its own save, never by a source's.
    local(Attribute("fullTextHTML", .text, localOnly: true)) { $0.fullTextHTML = $1.textValue },
    local(Attribute("fullText", .text, localOnly: true)) { $0.fullText = $1.textValue },
    local(Attribute("fullTextAt", .date, localOnly: true)) {
      $0.fullTextAt = $1.integerValue.map { Timestamp(millisecondsSince1970: $0).date }
    },
    ArticleColumn(Attribute("fullTextError", .text, localOnly: true), .none, value: nil, read: nil, json: nil),
    // Derived from the key by the writer; never from a source.
    ArticleColumn(
      Attribute("handle", .text, localOnly: true), .derived,
      value: { _, key, _ in .text(ArticleIdentity.handle(forKey: key)) }, read: nil,
      json: ("handle", { $0.handle })),
    // The search text of an HTML summary and content (migration 11): derived by the feed decoder, written by the
    // article writer with the fields it comes from; never mapped from a source's record.
    text(
      Attribute("summaryText", .text, localOnly: true), printed: false, get: { $0.summaryText },
      set: { $0.summaryText = $1 }),
    text(
      Attribute("contentText", .text, localOnly: true), printed: false, get: { $0.contentText },
      set: { $0.contentText = $1 }),
    // The feed item's own identifier scoped to its feed (migration 15): derived by the feed decoder, written by the
    // article writer (kept once set), never mapped from a source's record; no read uses it.
    ArticleColumn(
      Attribute("itemID", .text, localOnly: true), .keptOnceSet,
      value: { article, _, _ in article.itemID.databaseValue }, read: nil, json: nil),
    // The reading state, printed by `--json` so that a script tells read and bookmarked articles apart (tester LOW).
    local(
      Attribute("isRead", .bool, optional: false, localOnly: true, default: .integer(0)),
      json: ("isRead", { $0.isRead })
    ) {
      $0.isRead = ($1.integerValue ?? 0) != 0
    },
    local(
      Attribute("bookmarkedAt", .date, localOnly: true),
      json: ("bookmarkedAt", { $0.bookmarkedAt.map { Timestamp($0).rfc3339String } })
    ) {
      $0.bookmarkedAt = $1.integerValue.map { Timestamp(millisecondsSince1970: $0).date }
    },
    // When the store first saved the article (migration 18): the arrival the sync APIs page and filter by (Reader
    // `ot`/`nt`, `crawlTimeMsec`; Miniflux `created_at`). `fetchedAt` is rewritten by every save that changes the
    // row; this is not. No read returns it on an ``Article`` (whose equality it would change); the sync APIs read it
    // by key (`StorageContext.syncFacts(ofKeys:)`).
    ArticleColumn(Attribute("firstSeenAt", .date, localOnly: true), .firstSave, value: nil, read: nil, json: nil),
    // The id `news serve` gives the article (migration 20): the key's handle when the row is inserted, never changed
    // after (a re-key keeps it), unless the writer finds it taken (`ArticleWriter`'s served-id probe). No read returns
    // it on an ``Article``; the sync APIs read it by key (`StorageContext.servedIDs(ofKeys:)`).
    ArticleColumn(
      Attribute("servedID", .text, localOnly: true), .derived,
      value: { _, key, _ in .text(ArticleIdentity.handle(forKey: key)) }, read: nil, json: nil),
    // Whether the search index folds the row's texts (migration 24): 0 when none holds a character it folds out
    // (``ArticleWriter/needsFolding(_:)``), so that `article_search_text` reads them without six `replace()` calls
    // each. No read returns it.
    ArticleColumn(
      Attribute("searchFolds", .bool, optional: false, localOnly: true, default: .integer(1)), .followsContent,
      value: { article, _, _ in .integer(ArticleWriter.needsFolding(article) ? 1 : 0) }, read: nil, json: nil),
  ]

  /// The columns a save binds per article, in bind order (``Write/key``, ``Write/content``,
  /// ``Write/keptOnceSet``, ``Write/derived``, ``Write/followsContent``; declaration order), then the save's own (``Write/save``, then
  /// ``Write/firstSave``).
  static let bound =
    all.filter { $0.value != nil } + all.filter { $0.write == .save } + all.filter { $0.write == .firstSave }

  /// The values of ``bound``'s per-article columns, computed once: what the writer calls per row.
  static let boundValues = all.compactMap(\.value)

  /// The columns a read returns, in `SELECT` order (declaration order): the key first.
  static let returned = all.filter { $0.read != nil || $0.write == .key }

  /// The fields of the `--json` document, in declaration order.
  package static let jsonFields = all.compactMap(\.json)

  private init(
    _ attribute: Attribute, _ write: Write,
    value: (@Sendable (Article, String, String?) -> DatabaseValue)?,
    read: (@Sendable (inout Article, DatabaseValue) -> Void)?,
    json: (name: String, value: @Sendable (Article) -> (any Encodable & Sendable)?)?
  ) {
    self.attribute = attribute
    self.write = write
    self.value = value
    self.read = read
    self.json = json
  }

  /// A column of an optional text field of ``Article`` (`get`, `set`) that a save writes as content (``Write/content``):
  /// bound as the field is (`NULL` for `nil`), read back into it, and printed by `--json` under the column's name
  /// unless `printed` is `false`.
  private static func text(
    _ attribute: Attribute, printed: Bool = true, get: @escaping @Sendable (Article) -> String?,
    set: @escaping @Sendable (inout Article, String?) -> Void
  ) -> ArticleColumn {
    ArticleColumn(
      attribute, .content, value: { article, _, _ in get(article).databaseValue }, read: { set(&$0, $1.textValue) },
      json: printed ? (name: attribute.name, value: { @Sendable in get($0) }) : nil)
  }

  /// A local-only column a read returns and no save writes, printed by `--json` as `json` says (none by default).
  private static func local(
    _ attribute: Attribute, json: (name: String, value: @Sendable (Article) -> (any Encodable & Sendable)?)? = nil,
    read: @escaping @Sendable (inout Article, DatabaseValue) -> Void
  ) -> ArticleColumn {
    ArticleColumn(attribute, .none, value: nil, read: read, json: json)
  }
}
