import Foundation

/// One JSON object holding `base`'s members and then `extra`'s: how a `--json` document adds members to another's
/// (`news show` adds the local state to an article's fields, `news search` a hit's rank and snippet). Both must
/// encode as keyed containers, and their keys must differ (a repeated key would be written once, the later value).
struct Merged<Base: Encodable, Extra: Encodable>: Encodable {
  /// The members first written.
  var base: Base
  /// The members added.
  var extra: Extra

  init(_ base: Base, _ extra: Extra) {
    self.base = base
    self.extra = extra
  }

  func encode(to encoder: any Encoder) throws {
    try base.encode(to: encoder)
    try extra.encode(to: encoder)
  }
}
