/// A small, fast, seeded generator (SplitMix64, Steele, Lea & Flood 2014): the same seed gives the same payload on
/// every machine, so figures from two runs are comparable.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform integer in `range` (a cheap multiply-shift reduction; the bias is far below what matters here).
  mutating func int(_ range: ClosedRange<Int>) -> Int {
    let span = UInt64(range.upperBound - range.lowerBound + 1)
    return range.lowerBound + Int(((next() >> 32) &* span) >> 32)
  }

  /// `true` with probability `percent` / 100.
  mutating func chance(_ percent: Double) -> Bool {
    Double(next() >> 11) * 0x1p-53 * 100 < percent
  }

  /// One element of a non-empty array.
  mutating func pick<T>(_ items: [T]) -> T {
    items[int(0...(items.count - 1))]
  }
}
