/// The identity of each source of a store: the name it was first recorded under, kept through its renames — by
/// ``NewsRepository/renameSubscription(_:to:in:)``, by a feed imported without a title taking its own
/// (``NewsRepository/nameUntitled(_:in:titles:)``), or by a refresh adopting the articles of a source renamed outside the
/// library (a configuration file edited by hand). What an app derives an outside id from (`news serve`'s Miniflux
/// feed ids), so that a rename does not make a sync client see a new feed and lose the old one. A source never
/// renamed is its own identity. Read with ``NewsRepository/sourceIdentities()`` (store schema 23).
public struct SourceIdentities: Sendable, Equatable {
  /// The stored identities by name folded to lower case.
  private let byFoldedName: [String: String]

  /// - Parameter identities: identities by source name, as the store holds them (names compared without regard to
  ///   case).
  package init(_ identities: [String: String]) {
    var folded: [String: String] = [:]
    for (name, identity) in identities { folded[name.lowercased()] = identity }
    byFoldedName = folded
  }

  /// The identity of the source named `name` (any case): the name it was first recorded under, or `name` itself.
  public func identity(ofSourceNamed name: String) -> String { byFoldedName[name.lowercased()] ?? name }
}
