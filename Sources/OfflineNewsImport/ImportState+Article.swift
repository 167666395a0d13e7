import Foundation
import OfflineNewsModel
import OfflineNewsStorage

/// The key of a built-in `article` record (``ArticleIdentity``): the one rule every source's items are identified
/// by, whatever mapping reads them.
extension ImportState {
  /// Why an article record has no key.
  struct ArticleKeyProblem: Error {
    var keyPath: String
    var reason: String
  }

  /// The key of a built-in `article` record and its link as given (absolute, after base-URL resolution): by the
  /// mapping's ``ArticleKeyRule``; without one, the `url` attribute as the mapping reads it (its `from` list,
  /// transforms and `baseURL`). The link's canonical form (``CanonicalURL``) when it is an absolute `http(s)` URL,
  /// else the identifier scoped to the rule's scope (the payload's source by default).
  mutating func articleKey(_ item: JSONValue, _ entity: EntityMapping, place: String) -> Result<
    (key: String, link: String?), ArticleKeyProblem
  > {
    let urlSpec = entity.attributes["url"] ?? AttributeMapping()
    let rule =
      entity.articleKey ?? ArticleKeyRule(link: urlSpec.keyPaths.isEmpty ? [JSONPath("url")] : urlSpec.keyPaths)
    var options = options(for: urlSpec)
    if entity.articleKey != nil { options.mapping.transforms = [] }
    var link: String?
    var linkPlace: String?
    for path in rule.link {
      guard let found = item[path: path].flatMap(ValueConverter.unwrapParse) else { continue }
      let transformed = ValueConverter.apply(entity.articleKey == nil ? urlSpec.transforms : [], to: found)
      guard case .string(let raw) = transformed else { continue }
      let text = raw.trimmingWhiteSpace
      guard !text.isEmpty else { continue }
      linkPlace = at(place, path.description)
      if let resolved = ValueConverter.identity(.string(text), type: .url, options: options),
        case .text(let url) = resolved
      {
        link = url
      } else {
        link = text
      }
      break
    }
    if let link, let url = URL(string: link), url.isWebURL {
      return .success((ArticleIdentity.linked(url).absoluteString, link))
    }
    for path in rule.id {
      guard let found = item[path: path].flatMap(ValueConverter.unwrapParse) else { continue }
      let id: String
      switch found {
      case .string(let text) where !text.trimmingWhiteSpace.isEmpty: id = text
      case .integer(let number): id = String(number)
      default: continue
      }
      // Its own page on its site (``ArticleKeyRule/page``), when the mapping says where: the link to open.
      return .success((ArticleIdentity.scoped(scope(of: rule), id: id).absoluteString, rule.page(ofID: id)))
    }
    if let link {
      return .failure(
        ArticleKeyProblem(
          keyPath: linkPlace ?? place,
          reason: "\(link) is not an absolute http(s) URL (give the url a baseURL), and the item has no id"))
    }
    let tried = (rule.link + rule.id).map(\.description).joined(separator: ", ")
    return .failure(
      ArticleKeyProblem(keyPath: place, reason: "missing identity: the item has no link and no id (\(tried))"))
  }

  /// The key of the article whose own identifier is `id` (a join record's owner), by the mapping's rule; `nil`
  /// without a rule that reads an id.
  func articleKey(forID id: DatabaseValue, _ entity: EntityMapping) -> DatabaseValue? {
    guard case .text(let text) = id, let rule = entity.articleKey, !rule.id.isEmpty else { return nil }
    return .text(ArticleIdentity.scoped(scope(of: rule), id: text).absoluteString)
  }

  /// What a rule's identifiers are unique within: its fixed ``ArticleKeyRule/scope``; else the first http(s) URL of
  /// its ``ArticleKeyRule/scopeFrom`` (canonical, as a feed's scope is: `ArticleIdentity.feedScope`); else the
  /// payload's source.
  func scope(of rule: ArticleKeyRule) -> String {
    if let scope = rule.scope { return scope }
    guard !rule.scopeFrom.isEmpty else { return source }
    return ArticleIdentity.feedScope(homePage: baseURL(rule.scopeFrom), origin: source)
  }
}
