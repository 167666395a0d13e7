import Foundation

/// Why a subscription file (``SubscriptionFile``) could not be read or written: the file, the place in it and what
/// is wrong there, in a sentence a person can act on.
///
/// For example: `~/.config/news/news.json: sources.ATP.feed must be an http(s) URL`, or
/// `news.json: not valid JSON: byte 41 (line 3, column 7): expected "," or "}" after a member of an object, found "]"`.
public struct SubscriptionFileError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure it is.
  public enum Kind: Sendable, Hashable {
    /// The file cannot be read (missing, a folder, no permission, over ``SubscriptionFile/maximumFileSize``).
    case unreadable
    /// The text is not JSON (RFC 8259), or its top level is not an object.
    case invalidJSON
    /// A value is of the wrong type or out of range, or a key is unknown; ``message`` names the key path.
    case invalidValue
    /// The file or its folder cannot be written, or the edited file would not read back (nothing was changed).
    case unwritable
  }

  /// What kind of failure it is.
  public var kind: Kind
  /// The file, as given (symbolic links resolved for edits).
  public var path: String
  /// The whole message, starting with the file's path and naming the key (`sources.NAME.feed`) or position.
  public var message: String
  /// What to do about it, when there is something to say; `nil` otherwise.
  public var hint: String?

  /// A failure of `kind` in `path`; `message` should start with the path.
  public init(_ kind: Kind, path: String, _ message: String, hint: String? = nil) {
    self.kind = kind
    self.path = path
    self.message = message
    self.hint = hint
  }

  /// ``message``.
  public var description: String { message }
}
