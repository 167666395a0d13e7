import Foundation

/// Bounds concurrent network work in all and per host (`news fetch --all`, full-text downloads): ``acquire(_:)``
/// waits for a place, ``release(_:)`` gives it back; waiting callers start in arrival order when their host has room.
package actor HostLimiter {
  private let total: Int
  private let perHost: Int
  private var running = 0
  private var perHostRunning: [String: Int] = [:]
  private var waiting: [(host: String, continuation: CheckedContinuation<Void, Never>)] = []

  /// At most `total` at once, and `perHost` at once for one host (each at least 1).
  package init(total: Int, perHost: Int) {
    self.total = max(1, total)
    self.perHost = max(1, perHost)
  }

  /// Waits for a place for `host`, and takes it.
  package func acquire(_ host: String) async {
    if canStart(host) {
      start(host)
      return
    }
    await withCheckedContinuation { waiting.append((host, $0)) }
  }

  /// Gives back a place taken for `host`.
  package func release(_ host: String) {
    running -= 1
    perHostRunning[host, default: 1] -= 1
    if let index = waiting.firstIndex(where: { canStart($0.host) }) {
      let next = waiting.remove(at: index)
      start(next.host)
      next.continuation.resume()
    }
  }

  private func canStart(_ host: String) -> Bool {
    running < total && perHostRunning[host, default: 0] < perHost
  }

  private func start(_ host: String) {
    running += 1
    perHostRunning[host, default: 0] += 1
  }
}
