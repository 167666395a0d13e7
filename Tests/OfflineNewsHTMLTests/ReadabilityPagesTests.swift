import Foundation
import OfflineNewsHTML
import TestSupport
import Testing

/// The extractor on the real pages of Mozilla Readability's test suite (`../shared/fixtures/real/pages/`): our text
/// against the text of `expected.html` (Readability.js's own output), and our title and byline against
/// `expected-metadata.json`.
@Suite(.enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))
struct ReadabilityPagesTests {
  struct PageResult {
    var name: String
    var f1: Double
    var titleMatches: Bool
    var bylineMatches: Bool
    var title: String
    var expectedTitle: String
    var byline: String?
    var expectedByline: String?
  }

  static let pagesDirectory = Fixtures.sharedRealDirectory.appendingPathComponent("pages")

  static var pageNames: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: pagesDirectory.path)) ?? []
    return names.filter {
      FileManager.default.fileExists(atPath: pagesDirectory.appendingPathComponent("\($0)/source.html").path)
    }.sorted()
  }

  /// The words of a text: split at Unicode whitespace and punctuation, lower-cased.
  static func tokens(_ text: String) -> [String] {
    text.lowercased().split { $0.isWhitespace || $0.isPunctuation }.map(String.init)
  }

  /// The F1 score of two bags of words: the harmonic mean of precision and recall of their multiset overlap.
  static func f1(_ candidate: [String], _ reference: [String]) -> Double {
    if candidate.isEmpty && reference.isEmpty { return 1 }
    guard !candidate.isEmpty, !reference.isEmpty else { return 0 }
    var counts: [String: Int] = [:]
    for token in reference { counts[token, default: 0] += 1 }
    var overlap = 0
    for token in candidate where counts[token, default: 0] > 0 {
      counts[token, default: 0] -= 1
      overlap += 1
    }
    guard overlap > 0 else { return 0 }
    let precision = Double(overlap) / Double(candidate.count)
    let recall = Double(overlap) / Double(reference.count)
    return 2 * precision * recall / (precision + recall)
  }

  /// Readability's test harness reads every page as if served from this address.
  static let pageURL = URL(string: "http://fakehost/test/page.html")

  static func evaluate(_ name: String) throws -> PageResult {
    let folder = pagesDirectory.appendingPathComponent(name)
    let source = try Data(contentsOf: folder.appendingPathComponent("source.html"))
    let expectedHTML = try String(contentsOf: folder.appendingPathComponent("expected.html"), encoding: .utf8)
    let metadataData = try Data(contentsOf: folder.appendingPathComponent("expected-metadata.json"))
    let metadata = try JSONSerialization.jsonObject(with: metadataData) as? [String: Any] ?? [:]
    let article = try ReadabilityExtractor().extract(from: source, url: pageURL)
    // The expected text is read from expected.html with our own HTML module, independently of the extractor.
    let expectedText = HTMLTextRenderer.text(of: expectedHTML)
    let expectedTitle = metadata["title"] as? String ?? ""
    let expectedByline = metadata["byline"] as? String
    return PageResult(
      name: name, f1: f1(tokens(article?.text ?? ""), tokens(expectedText)),
      titleMatches: (article?.title ?? "") == expectedTitle, bylineMatches: article?.byline == expectedByline,
      title: article?.title ?? "", expectedTitle: expectedTitle, byline: article?.byline,
      expectedByline: expectedByline)
  }

  @Test("token F1 ≥ 0.99 on average and ≥ 0.8 on every page; title and byline right on ≥ 90 % of pages")
  func pages() throws {
    let names = Self.pageNames
    try #require(!names.isEmpty, "no pages in \(Self.pagesDirectory.path)")
    var results: [PageResult] = []
    for name in names { results.append(try Self.evaluate(name)) }

    var table = "page                          F1      title  byline\n"
    for result in results {
      table +=
        result.name.padding(toLength: 28, withPad: " ", startingAt: 0)
        + String(
          format: "  %.4f  %@  %@\n", result.f1, result.titleMatches ? "  ok " : "  ✗  ",
          result.bylineMatches ? " ok" : " ✗")
      if !result.titleMatches {
        table += "    title  \(String(reflecting: result.title)) ≠ \(String(reflecting: result.expectedTitle))\n"
      }
      if !result.bylineMatches {
        table +=
          "    byline \(String(reflecting: result.byline)) ≠ \(String(reflecting: result.expectedByline))\n"
      }
    }
    let average = results.map(\.f1).reduce(0, +) / Double(results.count)
    let titles = Double(results.filter(\.titleMatches).count) / Double(results.count)
    let bylines = Double(results.filter(\.bylineMatches).count) / Double(results.count)
    table += String(
      format: "average F1 %.4f, lowest %.4f; titles %.0f %%, bylines %.0f %% (%d pages)\n", average,
      results.map(\.f1).min() ?? 0, titles * 100, bylines * 100, results.count)
    print(table)

    #expect(average >= 0.99, "average token F1 \(average)")
    for result in results { #expect(result.f1 >= 0.8, "\(result.name): token F1 \(result.f1)") }
    #expect(titles >= 0.9, "titles equal on \(titles * 100) % of pages")
    #expect(bylines >= 0.9, "bylines equal on \(bylines * 100) % of pages")
  }
}
