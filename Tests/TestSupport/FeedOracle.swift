import Foundation

/// What a feed's XML says, read off an ``OracleElement`` tree with Foundation's date formatters: the independent
/// expectations the feed tests check our parser and `news import` against. It names elements and namespaces as
/// the specifications do (RSS 2.0, RSS 1.0, RFC 4287) and shares no code with the feed parser.
public enum FeedOracle {
  public static let atom = OracleNamespace.uri("http://www.w3.org/2005/Atom")
  public static let rss10 = OracleNamespace.uri("http://purl.org/rss/1.0/")
  public static let dc = OracleNamespace.uri("http://purl.org/dc/elements/1.1/")
  public static let content = OracleNamespace.uri("http://purl.org/rss/1.0/modules/content/")
  public static let itunes = OracleNamespace.uri("http://www.itunes.com/dtds/podcast-1.0.dtd")

  /// `rss`, `rdf` or `atom`, from the root element alone.
  public static func kind(_ root: OracleElement) -> String {
    switch root.name {
    case "rss": return "rss"
    case "RDF": return "rdf"
    default: return "atom"
    }
  }

  /// The items (RSS, RDF) or entries (Atom), in document order.
  public static func items(_ root: OracleElement) -> [OracleElement] {
    switch kind(root) {
    case "rss": return (root.first("channel")?.all("item") ?? []) + root.all("item")
    case "rdf": return root.all("item", rss10)
    default: return root.all("entry", .uri(root.namespace ?? ""))
    }
  }

  /// RFC 822 dates by DateFormatter, with the patterns real feeds need (numeric zones and zone names).
  public static func rfc822(_ text: String) -> Date? {
    let patterns = ["EEE, dd MMM yyyy HH:mm:ss Z", "EEE, dd MMM yyyy HH:mm:ss zzz", "dd MMM yyyy HH:mm:ss Z"]
    for pattern in patterns {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.dateFormat = pattern
      if let date = formatter.date(from: text.trimmingCharacters(in: .whitespacesAndNewlines)) { return date }
    }
    return nil
  }

  /// RFC 3339 and date-only values by ISO8601DateFormatter.
  public static func iso8601(_ text: String) -> Date? {
    let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let withFraction = ISO8601DateFormatter()
    withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    let dateOnly = ISO8601DateFormatter()
    dateOnly.formatOptions = [.withFullDate]
    return withFraction.date(from: text) ?? plain.date(from: text) ?? dateOnly.date(from: text)
  }

  /// Whole seconds since 1970, rounded down.
  public static func seconds(_ date: Date?) -> Int64? {
    date.map { Int64(($0.timeIntervalSince1970).rounded(.down)) }
  }
}
