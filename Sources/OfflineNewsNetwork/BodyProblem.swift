/// What was wrong with a body or file that is not a response the news network reads: a typed cause (``Kind``) and the
/// words that describe it, with sizes, positions and content types (``detail``). Callers choose what to say next by
/// the kind — a web page that announces no feed calls for `news extract`, a gzip file for `gunzip` — never by the
/// words.
///
/// For example: `BodyProblem(.truncated, "not valid JSON: truncated: it ends after 812 bytes with objects or arrays
/// still open: a cut-off download or file")`.
public struct BodyProblem: Sendable, Hashable, CustomStringConvertible {
  /// The cause.
  public enum Kind: Sendable, Hashable {
    /// A web page (HTML) where a feed or a NewsAPI response was expected; whether it announces a feed is not known.
    case htmlPage
    /// A web page that announces no feed (WHATWG HTML `<link rel="alternate">`): most article pages.
    case htmlPageAnnouncingNoFeed
    /// An XML document that is no feed `news` reads (RSS 0.9x/2.0, RSS 1.0, Atom).
    case xmlNotAFeed
    /// An OPML subscription list, whose feeds are subscribed to, never fetched as one.
    case subscriptionList
    /// gzip-compressed bytes (RFC 1952 §2.3.1 magic number) not unpacked.
    case compressed
    /// Bytes that are no text (WHATWG MIME Sniffing §7.2's binary data bytes).
    case binary
    /// Nothing but white space.
    case empty
    /// JSON or a feed that stops before its end: a cut-off download or file.
    case truncated
    /// Text that is not JSON (RFC 8259), at a position the detail names.
    case invalidJSON
    /// JSON of another shape than a NewsAPI response (a missing or wrong `status`, no `articles`, a wrong value).
    case wrongShape
    /// A feed document libxml2 cannot read past recovery, or a JSON document that is no JSON Feed.
    case unreadableFeed
    /// A valid response with no valid article in it.
    case noArticles
    /// The exchange broke HTTP's rules: a `304` to an unconditional request, a redirect loop, a `304` for rows no
    /// longer cached.
    case protocolViolation
    /// The reading was cancelled before the end.
    case cancelled
  }

  /// The cause.
  public var kind: Kind
  /// The words for people: what the body was and where it went wrong.
  public var detail: String

  /// A problem of `kind`, described by `detail`.
  public init(_ kind: Kind, _ detail: String) {
    self.kind = kind
    self.detail = detail
  }

  /// ``detail``.
  public var description: String { detail }
}
