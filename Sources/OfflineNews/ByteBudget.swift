import Synchronization

/// The bytes left for one call's images, shared by its concurrent downloads: each takes its cap before it starts and
/// gives back what it did not use, so that together they never pass the limit.
final class ByteBudget: Sendable {
  private let left: Mutex<Int>

  init(_ bytes: Int) { left = Mutex(bytes) }

  /// Takes up to `bytes`; returns how many were taken (0 when nothing is left).
  func take(upTo bytes: Int) -> Int {
    left.withLock { left in
      let taken = min(bytes, left)
      left -= taken
      return taken
    }
  }

  func giveBack(_ bytes: Int) { left.withLock { $0 += max(0, bytes) } }
}
