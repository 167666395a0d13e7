// libFuzzer target: `NewsAPIDecoder().decode`, the whole path from response bytes to a page of articles.
//
// Built by scripts/fuzz.sh together with Sources/OfflineNewsModel and Sources/OfflineNewsNetwork. Each input is
// decoded twice: as a file (no HTTP status), and as the body of an HTTP response whose status comes from the first
// byte, with a secret to redact. Properties checked, each a crash when broken:
// - decoding never traps, whatever the bytes;
// - a decoded page holds only articles with an absolute http(s) URL with a host, a non-blank title, and one per URL;
// - every record is accounted for: records = articles + records skipped + duplicates replaced (the records counted
//   apart from the decoder's record rules), and every issue's index points into `articles`;
// - a `httpStatus` error never carries the secret's bytes (the redaction happens before the cut).
import Foundation
import OfflineNewsModel
import OfflineNewsNetwork

private let secret = "fuzz0secret0key0d41d8cd98f00b204e"
private let statuses = [200, 204, 301, 400, 401, 404, 426, 429, 500, 502, 503]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let body = Data(bytes: data, count: size)
  let decoder = NewsAPIDecoder()
  if let page = try? decoder.decode(body) { check(page, body) }
  let status = statuses[Int(size == 0 ? 0 : data[0]) % statuses.count]
  do {
    let page = try decoder.decode(body, httpStatus: status, redacting: secret)
    guard (200..<300).contains(status) else { fatalError("HTTP \(status) decoded as a page") }
    check(page, body)
  } catch {
    if case .httpStatus(_, let prefix) = error, contains(prefix, secret) {
      fatalError("the secret leaked into an HTTP \(status) error: \(String(reflecting: prefix))")
    }
  }
  return 0
}

private func check(_ page: NewsPage, _ body: Data) {
  var seen = Set<String>()
  for article in page.articles {
    let scheme = article.url.scheme?.lowercased()
    guard scheme == "http" || scheme == "https", article.url.host?.isEmpty == false else {
      fatalError("an article with a URL that is not an absolute http(s) URL: \(article.url)")
    }
    guard article.title.contains(where: { !$0.isWhitespace }) else { fatalError("an article with a blank title") }
    guard seen.insert(article.url.absoluteString).inserted else { fatalError("two articles with one URL") }
  }
  guard let records = try? JSONDecoder().decode(RecordCount.self, from: body).count else { return }
  for issue in page.issues where !(0..<records).contains(issue.index) {
    fatalError("issue index \(issue.index) is not a record of \(records): \(issue)")
  }
  let replaced = page.issues.filter { !$0.skipped && $0.keyPath.hasSuffix(".url") }.count
  guard records == page.articles.count + page.skippedCount + replaced else {
    fatalError(
      "\(records) records: \(page.articles.count) articles, \(page.skippedCount) skipped, \(replaced) replaced")
  }
}

/// The number of elements of `articles`, counted by JSONDecoder without looking at them (so that a duplicate key
/// resolves the same way as in the decoder under test; JSONSerialization keeps the last duplicate, JSONDecoder the
/// first).
private struct RecordCount: Decodable {
  var count = 0

  private enum Keys: String, CodingKey { case articles }
  private struct Skip: Decodable {
    init(from decoder: any Decoder) throws {}
  }

  init(from decoder: any Decoder) throws {
    var records = try decoder.container(keyedBy: Keys.self).nestedUnkeyedContainer(forKey: .articles)
    while !records.isAtEnd {
      _ = try records.decode(Skip.self)
      count += 1
    }
  }
}

/// Whether `text` holds `needle`'s UTF-8 bytes anywhere (a byte search: canonical equivalence could hide a match
/// from `String.contains`).
private func contains(_ text: String, _ needle: String) -> Bool {
  let haystack = Array(text.utf8)
  let pattern = Array(needle.utf8)
  guard haystack.count >= pattern.count else { return false }
  for start in 0...(haystack.count - pattern.count)
  where haystack[start..<(start + pattern.count)].elementsEqual(pattern) {
    return true
  }
  return false
}
