import Foundation
import OfflineNewsModel

/// The JSON text of the `article.tags` and `article.enclosures` columns: `["a","b"]` and
/// `[{"url":"…","type":"…","length":123}]` (RFC 8259), written without a `JSONEncoder` on the bulk path.
enum ArticleJSON {
  static func encode(_ tags: [String]) -> String {
    "[" + tags.map(JSONText.quoted).joined(separator: ",") + "]"
  }

  static func encode(_ enclosures: [Enclosure]) -> String {
    "["
      + enclosures.map { enclosure in
        var fields = ["\"url\":" + JSONText.quoted(enclosure.url.absoluteString)]
        if let type = enclosure.type { fields.append("\"type\":" + JSONText.quoted(type)) }
        if let length = enclosure.length { fields.append("\"length\":\(length)") }
        return "{" + fields.joined(separator: ",") + "}"
      }.joined(separator: ",") + "]"
  }

  static func tags(_ text: String?) -> [String] {
    guard let data = text?.data(using: .utf8) else { return [] }
    return (try? JSONDecoder().decode([String].self, from: data)) ?? []
  }

  static func enclosures(_ text: String?) -> [Enclosure] {
    guard let data = text?.data(using: .utf8) else { return [] }
    return (try? JSONDecoder().decode([Enclosure].self, from: data)) ?? []
  }
}
