import Foundation

/// The canonical form of an article's link: the key that makes equivalent spellings of one URL one article.
///
/// The rules, applied to an absolute URL's text:
/// - RFC 3986 §6.2.2 syntax-based normalisation: the scheme and the host in lower case (§6.2.2.1);
///   percent-encodings with upper-case hex digits (§6.2.2.1) and those of unreserved characters
///   (`A–Z a–z 0–9 - . _ ~`) decoded (§6.2.2.2); dot segments removed from the path (§6.2.2.3, the algorithm of
///   §5.2.4).
/// - RFC 3986 §6.2.3 scheme-based normalisation: the default port dropped (`:80` for `http`, `:443` for `https`),
///   an empty path written `/`, an empty query (`?` alone) dropped.
/// - The fragment dropped: it names a place in the page, not another page.
/// - Tracking parameters removed from the query (``trackingParameters``, and every name starting `utm_`); the
///   other parameters stay, in their order and with their exact encoding.
///
/// `http` and `https` stay distinct (they may serve different documents), and the letter case of the path and the
/// query stays (servers may tell them apart). Only `http` and `https` URLs are canonicalised; others (`urn:`,
/// `mailto:`, the ``ArticleIdentity`` keys) are returned as they are.
package enum CanonicalURL {
  /// Query parameters that only say where a reader came from (analytics and ad click identifiers), removed from a
  /// canonical URL. Matched case-insensitively; every `utm_*` name is removed too.
  package static let trackingParameters: Set<String> = [
    "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "ttclid", "li_fat_id",
    "mc_cid", "mc_eid", "igshid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id",
    "vero_id", "rb_clickid", "s_cid", "wt_mc", "cmpid", "ncid", "ocid", "sr_share", "spm",
  ]

  /// The canonical form of `url`, or `url` itself when it is not an absolute `http`/`https` URL.
  package static func canonical(_ url: URL) -> URL {
    let text = url.absoluteString
    guard let canonical = canonical(text) else { return url }
    // Already canonical (most links): `url` is what parsing its own text again would give.
    if canonical == text, url.baseURL == nil { return url }
    return URL(string: canonical) ?? url
  }

  /// The canonical text of an absolute `http`/`https` URL, or `nil` when `text` is not one.
  package static func canonical(_ text: String) -> String? {
    isCanonicalAsGiven(text) ? text : canonicalByRules(text)
  }

  /// ``canonical(_:)-(String)`` by applying each rule: the text built again from its parts.
  static func canonicalByRules(_ text: String) -> String? {
    let find = Finder(ascii: text.utf8.allSatisfy { $0 < 0x80 })
    var rest = Substring(text)
    guard let colon = find.first(":", in: rest) else { return nil }
    let scheme = rest[..<colon].lowercased()
    guard scheme == "http" || scheme == "https" else { return nil }
    rest = rest[rest.index(after: colon)...]
    guard rest.hasPrefix("//") else { return nil }
    rest = rest.dropFirst(2)

    // Fragment, then query, then authority / path.
    if let hash = find.first("#", in: rest) { rest = rest[..<hash] }
    var query: Substring?
    if let mark = find.first("?", in: rest) {
      query = rest[rest.index(after: mark)...]
      rest = rest[..<mark]
    }
    let slash = find.first("/", in: rest) ?? rest.endIndex
    var authority = rest[..<slash]
    let path = rest[slash...]

    var userInfo = ""
    if let at = find.last("@", in: authority) {
      userInfo = String(authority[...at])
      authority = authority[authority.index(after: at)...]
    }
    var host = Substring(authority)
    var port = ""
    // The port follows the last colon outside an IPv6 literal's brackets.
    if let colon = find.last(":", in: authority), !find.contains(closingBracketIn: authority[colon...]) {
      host = authority[..<colon]
      port = String(authority[authority.index(after: colon)...])
    }
    guard !host.isEmpty else { return nil }
    let defaultPort = scheme == "http" ? "80" : "443"
    if port == defaultPort || port.isEmpty { port = "" } else { port = ":" + port }

    var result = scheme + "://" + userInfo + normalizedEscapes(host).lowercased() + port
    let normalizedPath = removingDotSegments(normalizedEscapes(path))
    result += normalizedPath.isEmpty ? "/" : normalizedPath
    if let query {
      let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { item in
        let name = (item.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "")
        // Without a `%` there is nothing to decode (and Foundation's decoding is the costly part).
        let decoded = (name.utf8.contains(UInt8(ascii: "%")) ? name.removingPercentEncoding ?? name : name)
          .lowercased()
        return !(decoded.hasPrefix("utm_") || trackingParameters.contains(decoded))
      }
      let joined = kept.map { normalizedEscapes($0) }.joined(separator: "&")
      if !joined.isEmpty { result += "?" + joined }
    }
    return result
  }

  /// Whether `text` is of the shape most links have, which every rule of ``canonical(_:)-(String)`` leaves as it
  /// is: `http://` or `https://` in lower case, a host of lower-case letters, digits, `.` and `-` (no user, no port),
  /// then a path of printable ASCII without `%` and without a `.` or `..` segment, and no query or fragment. Such a
  /// text is its own canonical form, found in one pass over its bytes without building another string (a first
  /// import canonicalises every link); any other text takes the rules one by one.
  static func isCanonicalAsGiven(_ text: String) -> Bool {
    text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      let count = bytes.count
      var index: Int
      if count > 8, bytes[0] == 0x68, bytes[1] == 0x74, bytes[2] == 0x74, bytes[3] == 0x70 {
        // "http" then "://" or "s://"
        index = bytes[4] == 0x73 ? 5 : 4
        guard bytes[index] == 0x3A, bytes[index + 1] == 0x2F, bytes[index + 2] == 0x2F else { return false }
        index += 3
      } else {
        return false
      }
      let hostStart = index
      while index < count, bytes[index] != 0x2F {
        switch bytes[index] {
        case 0x61...0x7A, 0x30...0x39, 0x2E, 0x2D: index += 1
        default: return false
        }
      }
      // A host, then the path's `/` (a URL without a path is canonical with `/` added).
      guard index > hostStart, index < count else { return false }
      index += 1
      var segmentStart = index
      while true {
        if index == count || bytes[index] == 0x2F {
          let length = index - segmentStart
          // A `.` or `..` segment (RFC 3986 §5.2.4 removes it).
          if length == 1 || length == 2, bytes[segmentStart] == 0x2E, length == 1 || bytes[segmentStart + 1] == 0x2E {
            return false
          }
          if index == count { return true }
          segmentStart = index + 1
        } else {
          // Printable ASCII but `%` (an escape to normalise), `?` (a query) and `#` (a fragment).
          switch bytes[index] {
          case 0x21...0x7E where bytes[index] != 0x25 && bytes[index] != 0x3F && bytes[index] != 0x23: break
          default: return false
          }
        }
        index += 1
      }
    } ?? false
  }

  /// `%xx` escapes with upper-case hex digits, those of unreserved characters decoded (RFC 3986 §6.2.2.1–2).
  static func normalizedEscapes(_ text: Substring) -> String {
    // By byte: a `%` that a combining mark joins into a larger Character is not followed by hex digits, so the loop
    // below leaves it as it is either way.
    guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
    var bytes = Array(text.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    func hex(_ byte: UInt8) -> UInt8? {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
      default: return nil
      }
    }
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
        let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
      {
        let value = high << 4 | low
        if isUnreserved(value) {
          output.append(value)
        } else {
          output.append(UInt8(ascii: "%"))
          output.append(upperHex(high))
          output.append(upperHex(low))
        }
        index += 3
      } else {
        output.append(byte)
        index += 1
      }
    }
    bytes = output
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func upperHex(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      return true
    default: return false
    }
  }

  /// RFC 3986 §5.2.4 "Remove Dot Segments".
  static func removingDotSegments(_ path: String) -> String {
    // Without a segment that is `.` or `..` the loop below gives `path` back unchanged (it only moves segments
    // across); a byte split finds every such segment the loop would (`.` and `/` are single-scalar Characters).
    let hasDotSegment = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains {
      $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8)
    }
    guard hasDotSegment else { return path }
    var input = Substring(path)
    var output: [Substring] = []
    while !input.isEmpty {
      if input.hasPrefix("../") {
        input = input.dropFirst(3)
      } else if input.hasPrefix("./") {
        input = input.dropFirst(2)
      } else if input.hasPrefix("/./") {
        input = input.dropFirst(2)
      } else if input == "/." {
        input = "/"
      } else if input.hasPrefix("/../") {
        input = input.dropFirst(3)
        if !output.isEmpty { output.removeLast() }
      } else if input == "/.." {
        input = "/"
        if !output.isEmpty { output.removeLast() }
      } else if input == "." || input == ".." {
        input = ""
      } else {
        // Move the first segment (with its leading "/", if any) to the output.
        let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
        let end = input[start...].firstIndex(of: "/") ?? input.endIndex
        output.append(input[..<end])
        input = input[end...]
      }
    }
    return output.joined()
  }

  /// The delimiter searches of ``canonical(_:)-(String)``: by Character, as Swift compares text, or, for ASCII text,
  /// by byte, which gives the same index without grapheme breaking (in ASCII only CR LF forms a Character of two
  /// scalars, and no delimiter is CR or LF).
  private struct Finder {
    let ascii: Bool

    func first(_ delimiter: Unicode.Scalar, in text: Substring) -> String.Index? {
      ascii ? text.utf8.firstIndex(of: UInt8(ascii: delimiter)) : text.firstIndex(of: Character(delimiter))
    }

    func last(_ delimiter: Unicode.Scalar, in text: Substring) -> String.Index? {
      ascii ? text.utf8.lastIndex(of: UInt8(ascii: delimiter)) : text.lastIndex(of: Character(delimiter))
    }

    /// Whether `text` holds a `]` (by Character, as `contains("]")` asks, unless ASCII).
    func contains(closingBracketIn text: Substring) -> Bool {
      ascii ? text.utf8.contains(UInt8(ascii: "]")) : text.contains("]")
    }
  }
}
