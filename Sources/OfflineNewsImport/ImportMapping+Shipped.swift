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

extension ImportMapping {
  /// The shipped mappings (``shippedNames``, `newsapi` excepted: the built-in decoder reads that shape) that read
  /// `data` into records, most records first: each whose records are where it says and of which more than half
  /// map to a record with an identity (none skipped by a rule or failed). For the hint of a JSON file that is no
  /// NewsAPI response (`news import FILE` → `--mapping hackernews`); nothing is stored. Empty when `data` is no
  /// JSON or no shipped mapping fits it.
  public static func shippedNames(reading data: Data) -> [String] {
    guard let json = try? JSONValue.parse(data) else { return [] }
    var fits: [(name: String, records: Int)] = []
    for name in shippedNames where name != "newsapi" {
      guard let mapping = try? shipped(name),
        let (changes, report) = try? Importer(mapping: mapping).makeChanges(json, source: name)
      else { continue }
      let records = changes.upserts.count
      if records > 0, report.failed + report.skipped < records { fits.append((name, records)) }
    }
    return fits.sorted { $0.records > $1.records }.map(\.name)
  }
}
