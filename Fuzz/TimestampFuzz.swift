// libFuzzer target: the RFC 3339 parser, `Timestamp(rfc3339:)` and `Timestamp(rfc3339:assumingOffset:)`.
//
// Built by scripts/fuzz.sh together with Sources/OfflineNewsModel (see Fuzz/README.md). Properties checked on every
// input, each a crash when broken:
// - the parser never traps, whatever the bytes;
// - a parsed instant prints as RFC 3339 and parses back to the same millisecond:
//   `Timestamp(rfc3339: t.rfc3339String) == t` (an instant outside years 0000–9999 broke it before cf6040c);
// - a text that parses without an offset parses to the same instant whatever `assumingOffset` says (the offset is
//   only for text that has none);
// - with an offset assumed, text without one is shifted by exactly that offset.
import Foundation
import OfflineNewsModel

/// Offsets a caller can mean: UTC, India, the extremes of real zones (−12:00, +14:00) and of the parser's own
/// offset field (±23:59); and absurd ones, which must give `nil`, never a trap (they trapped before cf6040c).
private let offsets = [0, 19_800, -43_200, 50_400, 86_340, -86_340, Int.max, Int.min, Int.max / 1000, 86_400 * 400]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let strict = Timestamp(rfc3339: text)
  if let strict { checkRoundTrip(strict, text) }
  for offset in offsets {
    let assumed = Timestamp(rfc3339: text, assumingOffset: offset)
    if let assumed { checkRoundTrip(assumed, text) }
    if let strict, assumed != strict {
      fatalError("assumingOffset \(offset) changed an instant that had its own offset: \(debug(text))")
    }
    if strict == nil, let assumed, let utc = Timestamp(rfc3339: text, assumingOffset: 0),
      assumed.millisecondsSince1970 != utc.millisecondsSince1970 - Int64(offset) * 1000
    {
      fatalError("assumingOffset \(offset) did not shift \(debug(text)) by exactly \(offset) s")
    }
  }
  return 0
}

private func checkRoundTrip(_ value: Timestamp, _ text: String) {
  let printed = value.rfc3339String
  guard let back = Timestamp(rfc3339: printed) else {
    fatalError(
      "\(debug(text)) parsed to \(value.millisecondsSince1970) ms, printed as \(printed), which does not parse")
  }
  guard back == value else {
    fatalError("\(debug(text)) → \(value.millisecondsSince1970) ms → \(printed) → \(back.millisecondsSince1970) ms")
  }
}

private func debug(_ text: String) -> String { String(reflecting: text) }
