import Foundation
import OfflineNews
import OfflineNewsModel

/// The numeric and textual identifiers `news serve` gives articles, sources and folders in the sync APIs it speaks
/// (Miniflux API v1, the Google Reader API) and in its web reader: derived from the store's own identities, so that
/// they are the same after a restart, in every API and for every client, with no table of their own.
///
/// - An article (a Miniflux *entry*, a Reader *item*) is its handle (``ArticleIdentity``: the 64-bit FNV-1a hash of
///   its key, 16 hex digits). The Reader API's long item id is `tag:google.com,2005:reader/item/` and those 16 digits,
///   its short form the same 64 bits as a signed decimal (as Google Reader and FreshRSS write them). Miniflux ids are
///   JSON numbers, which JavaScript clients read as doubles: the entry id is the handle's first 13 hex digits
///   (52 bits, exact in a double), found again by that handle prefix.
/// - A source (a Miniflux *feed*, a Reader *subscription* `feed/…`) is numbered by the first 13 hex digits of the
///   FNV-1a hash of `feed:` and its name (names are unique, case-insensitively).
/// - A folder (a Miniflux *category*, a Reader *label* `user/-/label/…`) by the same hash of `folder:` and its path
///   joined with `/`; the Reader label is that joined path.
public enum ServedIdentifiers {
  /// The Miniflux entry id of the article with key `key` (52 bits, > 0).
  public static func entryID(forKey key: String) -> Int64 { fiftyTwoBits(ArticleIdentity.handle(forKey: key)) }

  /// The handle prefix (13 hex digits) that finds the article of Miniflux entry id `id`, or `nil` for an id out of
  /// range.
  public static func handlePrefix(ofEntryID id: Int64) -> String? {
    guard id > 0, id < (1 << 52) else { return nil }
    let hex = String(id, radix: 16)
    return String(repeating: "0", count: 13 - hex.count) + hex
  }

  /// The Reader API's long item id of the article with key `key`: `tag:google.com,2005:reader/item/` + 16 hex digits.
  public static func readerItemID(forKey key: String) -> String {
    readerItemPrefix + ArticleIdentity.handle(forKey: key)
  }

  /// The 16-hex-digit handle of a Reader API item id in any of its forms (long, 16 hex digits, signed decimal), or
  /// `nil` when `text` is none of them.
  public static func handle(ofReaderItemID text: String) -> String? {
    var digits = Substring(text)
    if digits.hasPrefix(readerItemPrefix) { digits = digits.dropFirst(readerItemPrefix.count) }
    if digits.count == 16, digits.allSatisfy(\.isHexDigit) { return digits.lowercased() }
    guard let value = Int64(digits) else { return nil }
    let hex = String(UInt64(bitPattern: value), radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The signed decimal short form of a Reader item id, from the article's key.
  public static func readerShortItemID(forKey key: String) -> Int64 {
    Int64(bitPattern: UInt64(ArticleIdentity.handle(forKey: key), radix: 16) ?? 0)
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
