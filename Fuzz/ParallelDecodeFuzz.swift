// libFuzzer target: the parallel path of the NewsAPI decoder (bodies of 512 KB or more), called directly on small
// inputs: `ArticleArrayScanner.scan`, which delimits the `articles` array's elements without decoding them, and
// `NewsAPIDecoder.decodeInParallel`, which decodes those elements in chunks on every core.
//
// Built by scripts/fuzz.sh against OfflineNewsNetwork compiled with `-enable-testing` (the scanner is internal).
// Properties checked, each a crash when broken:
// - scanning and decoding never trap and never hang (libFuzzer's -timeout);
// - a layout lies inside the body: the array starts with `[` and ends with `]`, its elements are non-empty, in
//   order, not overlapping, and inside the array;
// - differential: when the parallel path returns a result, the whole-body decode (the path every body under 512 KB
//   takes) accepts the same body and gives the same envelope, articles and issues. The parallel path must never
//   accept a body the whole decode refuses, nor read it differently.
import Foundation
import OfflineNewsModel

@testable import OfflineNewsNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  if let layout = ArticleArrayScanner.scan(bytes) { check(layout, bytes) }

  let body = Data(bytes: data, count: size)
  guard let parallel = try? NewsAPIDecoder.decodeInParallel(body) else { return 0 }
  let whole: NewsAPIDecoder.DecodedEnvelope
  do {
    whole = try NewsAPIDecoder.decodeEnvelope(body)  // under 512 KB: the whole-body path
  } catch {
    return divergence("the parallel path accepted a body the whole decode refuses (\(error))", body)
  }
  guard parallel.status == whole.status, parallel.code == whole.code, parallel.message == whole.message,
    parallel.totalResults == whole.totalResults
  else { return divergence("the envelope differs", body) }
  let left = parallel.articles ?? []
  let right = whole.articles ?? []
  guard left.count == right.count else {
    return divergence("\(left.count) records in parallel, \(right.count) whole", body)
  }
  for (index, (a, b)) in zip(left, right).enumerated() where a.0 != b.0 || a.1 != b.1 {
    return divergence("record \(index) differs: \(String(describing: a)) vs \(String(describing: b))", body)
  }
  return 0
}

private func check(_ layout: ArticleArrayScanner.Layout, _ bytes: UnsafeBufferPointer<UInt8>) {
  let array = layout.array
  guard array.lowerBound >= 0, array.upperBound <= bytes.count, array.count >= 2, bytes[array.lowerBound] == 0x5B,
    bytes[array.upperBound - 1] == 0x5D
  else { fatalError("array range \(array) is not a [ … ] inside \(bytes.count) bytes") }
  var previous = array.lowerBound + 1
  for element in layout.elements {
    guard !element.isEmpty, element.lowerBound >= previous, element.upperBound <= array.upperBound - 1 else {
      fatalError("element \(element) is empty, out of order, or outside the array \(array)")
    }
    previous = element.upperBound
  }
}

/// A divergence between the two paths. Before e9cc723 the scanner skipped separators, so `[{…} {…}]`, `[{…},,{…}]`
/// and trailing commas were accepted from 512 KB on (found by this target: 2,699 inputs in 240 s).
private func divergence(_ message: String, _ body: Data) -> CInt {
  fatalError("\(message): \(String(decoding: body.prefix(300), as: UTF8.self))")
}
