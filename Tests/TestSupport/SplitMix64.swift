/// A tiny deterministic pseudo-random generator, SplitMix64 (Steele, Lea, Flood 2014;
/// <https://prng.di.unimi.it/splitmix64.c>, whose constants these are), so that generated test inputs are the same on
/// every run and every platform, and a failing one can be made again from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose first output is the one `splitmix64.c` gives after `x = seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 pseudo-random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
