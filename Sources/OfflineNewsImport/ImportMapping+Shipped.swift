import Foundation

extension ImportMapping {
  /// The names of the mappings shipped with the package, sorted: `hackernews` (Hacker News Firebase items),
  /// `jsonfeed` (JSON Feed 1.0/1.1), `newsapi` (NewsAPI v2, an example beside the built-in decoder) and
  /// `parse-server` (Parse Server REST exports). Each is documented in `docs/MAPPING.md`.
  public static var shippedNames: [String] { shippedMappingTexts.keys.sorted() }

  /// The shipped mapping `name` (one of ``shippedNames``), compiled into the package: it needs no file at run time,
  /// so it works from any folder, an installed program included. `nil` for a name the package does not ship.
  ///
  /// The source of each is `Config/mappings/NAME.json` in the package (generated into the code by
  /// `scripts/generate-shipped-mappings.py`); an app that wants its own version loads its file with
  /// ``load(contentsOf:)``.
  ///
  /// - Throws: ``ImportError/invalidMapping(_:)`` only if a shipped text does not read as a mapping, which the
  ///   package's tests rule out.
  public static func shipped(_ name: String) throws(ImportError) -> ImportMapping? {
    guard let text = shippedMappingTexts[name] else { return nil }
    let json: JSONValue
    do {
      json = try JSONValue.parse(Data(text.utf8))
    } catch {
      throw .invalidMapping("the shipped mapping \(name): \(error)")
    }
    do {
      return try parse(json, name: name)
    } catch {
      throw .invalidMapping("the shipped mapping \(name): \(error)")
    }
  }
}
