import Foundation

/// How an article's identity (the `article` table's key, ``Article/url``) is derived from what a source gives.
///
/// 1. An item with a link is its ``CanonicalURL`` (`HTTPS://Example.com:443/a/../b?utm_source=x#top` and
///    `https://example.com/b` are one article).
/// 2. An item without a link but with an identifier of its own is that identifier scoped to its source:
///    ``scoped(_:id:)`` gives `news-item:SCOPE/ID` (percent-encoded), e.g. `news-item:parse:Article/oRwkdx7KgX` or
///    `news-item:https://example.com/feed.json/42` for a JSON Feed item `42` — two feeds' item `42` stay apart.
/// 3. An item with neither (RSS allows it) is identified by its source and a fingerprint of its own content
///    (``fingerprint(_:)`` of its title, date and text), so that fetching the same feed again finds the same article.
///
/// Keys of kinds 2 and 3 are not links: an article keyed so has ``Article/link`` `nil` (or the link it has).
///
/// A feed's items are scoped to the feed itself, not to where its bytes were read: ``feedScope(homePage:origin:)``
/// is the feed's home page (RSS `channel/link`, Atom `link rel="alternate"`, JSON Feed `home_page_url` or
/// `feed_url`) in canonical form, and only a feed that names none is scoped to its URL or file path. So a feed
/// imported from a saved file and fetched from its URL gives each item one key.
package enum ArticleIdentity {
  /// The scheme of keys that are not links.
  package static let scheme = "news-item"

  /// The key of an item identified by `id` within `scope` (a source's name, a feed's URL, `parse:Class`).
  package static func scoped(_ scope: String, id: String) -> URL {
    let text = "\(scheme):\(escape(scope))/\(escape(id))"
    // Every character outside the allowed set is escaped above, so this is a valid URL.
    return URL(string: text) ?? URL(fileURLWithPath: "/\(escape(scope))/\(escape(id))")
  }

  /// The scope of a feed's items without a link of their own: the canonical form of the feed's home page when it
  /// names an absolute `http(s)` one, else `origin` (the feed's URL, or the file's path).
  package static func feedScope(homePage: URL?, origin: String) -> String {
    guard let homePage, homePage.isWebURL
    else { return origin }
    return linked(homePage).absoluteString
  }

  /// The key of an item with a link: its canonical URL.
  package static func linked(_ link: URL) -> URL { CanonicalURL.canonical(link) }

  /// The key of an item: its canonical link, else its id scoped to `scope`, else `nil` (use ``fingerprint(_:)``).
  package static func key(link: URL?, scope: String, id: String?) -> URL? {
    if let link, link.isWebURL {
      return linked(link)
    }
    if let id, !id.isEmpty { return scoped(scope, id: id) }
    return nil
  }

  /// A stable fingerprint of an item's own content: 16 hex digits of the 64-bit FNV-1a hash of its parts joined
  /// by U+001F (independent of the process and platform, unlike `Hasher`).
  package static func fingerprint(_ parts: [String?]) -> String {
    var hash = fnvOffsetBasis
    for (index, part) in parts.enumerated() {
      if index > 0 {
        hash ^= 0x1F
        hash &*= fnvPrime
      }
      if let part { hash = fnv1a(part, from: hash) }
    }
    return hexDigits(hash)
  }

  /// An article's handle: 16 lower-case hex digits of the 64-bit FNV-1a hash of its key. Printed shortened to the
  /// fewest digits (6 at least) that no other stored article's handle starts with, as git shortens commit hashes;
  /// stable for as long as the key is. (``fingerprint(_:)`` of the key alone, without an array for its one part: a
  /// first import computes one per article.)
  package static func handle(forKey key: String) -> String { hexDigits(fnv1a(key, from: fnvOffsetBasis)) }

  /// FNV-1a 64's offset basis and prime (<http://www.isthe.com/chongo/tech/comp/fnv/>).
  private static let fnvOffsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
  private static let fnvPrime: UInt64 = 0x0000_0100_0000_01B3

  /// `hash` continued over the UTF-8 bytes of `text`.
  private static func fnv1a(_ text: String, from hash: UInt64) -> UInt64 {
    var text = text
    return text.withUTF8 { bytes in
      var hash = hash
      for byte in bytes {
        hash ^= UInt64(byte)
        hash &*= fnvPrime
      }
      return hash
    }
  }

  /// `value` as 16 lower-case hex digits, leading zeros included.
  private static func hexDigits(_ value: UInt64) -> String {
    String(unsafeUninitializedCapacity: 16) { buffer in
      for index in 0..<16 {
        let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0x0F
        buffer[index] = nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
      }
      return 16
    }
  }

  /// Whether `text` can be (a prefix of) a handle: 4 to 16 hex digits.
  package static func looksLikeHandle(_ text: String) -> Bool {
    (4...16).contains(text.count) && text.allSatisfy { $0.isHexDigit && ($0.isNumber || $0.isLowercase) }
  }

  /// Whether `url` is a key of kind 2 or 3 (not a link).
  package static func isScoped(_ url: URL) -> Bool { url.scheme == scheme }

  /// The bytes ``escape(_:)`` keeps as they are: ASCII letters and digits, and `-._~:@!$'()*+,;=`, by byte value.
  private static let kept: [Bool] = {
    var kept = [Bool](repeating: false, count: 256)
    for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { kept[Int(byte)] = true }
    for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { kept[Int(byte)] = true }
    for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { kept[Int(byte)] = true }
    for byte in "-._~:@!$'()*+,;=".utf8 { kept[Int(byte)] = true }
    return kept
  }()

  /// `text` with every UTF-8 byte but those ``kept`` written `%XX` (upper-case hex digits, RFC 3986 §2.1): what
  /// Foundation's `addingPercentEncoding(withAllowedCharacters:)` gives for that set, byte for byte, computed on the
  /// bytes (the Foundation call and its `CharacterSet` were most of the cost of a feed item's scoped key).
  package static func escape(_ text: String) -> String {
    var text = text
    return text.withUTF8 { bytes in
      if bytes.allSatisfy({ kept[Int($0)] }) { return String(decoding: bytes, as: UTF8.self) }
      let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
      var escaped: [UInt8] = []
      escaped.reserveCapacity(bytes.count * 3)
      for byte in bytes {
        if kept[Int(byte)] {
          escaped.append(byte)
        } else {
          escaped.append(UInt8(ascii: "%"))
          escaped.append(digits[Int(byte >> 4)])
          escaped.append(digits[Int(byte & 0x0F)])
        }
      }
      return String(decoding: escaped, as: UTF8.self)
    }
  }
}
