import Foundation
import OfflineNews
import OfflineNewsModel
import OfflineNewsStorage

/// The numeric and textual identifiers `news serve` gives articles, sources and folders in the sync APIs it speaks
/// (Miniflux API v1, the Google Reader API) and in its web reader: derived from the store's own identities, so that
/// they are the same after a restart, in every API and for every client, with no table of their own.
///
/// - An article (a Miniflux *entry*, a Reader *item*) is its served id (`article.servedID`, migration 20: 16 hex
///   digits, read with the article by `NewsRepository.syncFacts(of:)`): the handle of the key it was inserted under
///   (``ArticleIdentity``: the 64-bit FNV-1a hash of its key), kept when the row is re-keyed (a publisher fixes a
///   link: the same guid under a new link), so that a client keeps one article under one id, with its read and
///   starred marks. The Reader API's long item id is `tag:google.com,2005:reader/item/` and those 16 digits, its
///   short form the same 64 bits as a signed decimal (as Google Reader and FreshRSS write them). Miniflux ids are
///   JSON numbers, which JavaScript clients read as doubles: the entry id is the served id's first 13 hex digits
///   (52 bits, exact in a double), found again by that prefix (the store gives a new row whose 13 digits another
///   row holds the next free ones).
/// - A source (a Miniflux *feed*, a Reader *subscription* `feed/…`) is numbered by the first 13 hex digits of the
///   FNV-1a hash of `feed:` and its name (names are unique, case-insensitively).
/// - A folder (a Miniflux *category*, a Reader *label* `user/-/label/…`) by the same hash of `folder:` and its path
///   joined with `/`; the Reader label is that joined path.
public enum ServedIdentifiers {
  /// The served id of `article` (16 hex digits) as `facts` (the store's, by key) hold it; for an article the store
  /// no longer holds, the handle of its key (what a row inserted under it is given).
  package static func servedID(of article: Article, in facts: [String: SyncFacts]) -> String {
    let key = article.url.absoluteString
    return facts[key]?.servedID ?? ArticleIdentity.handle(forKey: key)
  }

  /// The Miniflux entry id of the article whose served id is `servedID` (its first 13 hex digits: 52 bits, > 0).
  public static func entryID(ofServedID servedID: String) -> Int64 { fiftyTwoBits(servedID) }

  /// The Miniflux entry id of an article inserted under `key` and never moved (its served id is the key's handle).
  public static func entryID(forKey key: String) -> Int64 { entryID(ofServedID: ArticleIdentity.handle(forKey: key)) }

  /// The served-id prefix (13 hex digits) that finds the article of Miniflux entry id `id`, or `nil` for an id out
  /// of range.
  public static func servedIDPrefix(ofEntryID id: Int64) -> String? {
    guard id > 0, id < (1 << 52) else { return nil }
    let hex = String(id, radix: 16)
    return String(repeating: "0", count: 13 - hex.count) + hex
  }

  /// The Reader API's long item id of the article whose served id is `servedID`:
  /// `tag:google.com,2005:reader/item/` + its 16 hex digits.
  public static func readerItemID(ofServedID servedID: String) -> String { readerItemPrefix + servedID }

  /// The Reader API's long item id of an article inserted under `key` and never moved.
  public static func readerItemID(forKey key: String) -> String {
    readerItemID(ofServedID: ArticleIdentity.handle(forKey: key))
  }

  /// The 16-hex-digit served id of a Reader API item id in any of its forms (long, 16 hex digits, signed decimal),
  /// or `nil` when `text` is none of them.
  public static func servedID(ofReaderItemID text: String) -> String? {
    var digits = Substring(text)
    if digits.hasPrefix(readerItemPrefix) { digits = digits.dropFirst(readerItemPrefix.count) }
    if digits.count == 16, digits.allSatisfy(\.isHexDigit) { return digits.lowercased() }
    guard let value = Int64(digits) else { return nil }
    let hex = String(UInt64(bitPattern: value), radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The signed decimal short form of a Reader item id, from the article's served id.
  public static func readerShortItemID(ofServedID servedID: String) -> Int64 {
    Int64(bitPattern: UInt64(servedID, radix: 16) ?? 0)
  }

  /// The signed decimal short form of the Reader item id of an article inserted under `key` and never moved.
  public static func readerShortItemID(forKey key: String) -> Int64 {
    readerShortItemID(ofServedID: ArticleIdentity.handle(forKey: key))
  }

  /// The numeric id of the source named `name` (a Miniflux feed id).
  public static func feedID(forSourceNamed name: String) -> Int64 {
    fiftyTwoBits(ArticleIdentity.handle(forKey: "feed:" + name.lowercased()))
  }

  /// The numeric id of the folder `path` (a Miniflux category id); the top level (`[]`) is Miniflux's "All".
  public static func categoryID(forFolder path: [String]) -> Int64 {
    fiftyTwoBits(ArticleIdentity.handle(forKey: "folder:" + path.joined(separator: "/")))
  }

  /// The Reader API's prefix of long item ids.
  public static let readerItemPrefix = "tag:google.com,2005:reader/item/"

  private static func fiftyTwoBits(_ handle: String) -> Int64 {
    max(1, Int64(handle.prefix(13), radix: 16) ?? 1)
  }
}
