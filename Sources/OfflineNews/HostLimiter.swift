import Foundation

/// Bounds concurrent network work in all and per host (`news fetch --all`, full-text downloads): ``acquire(_:)``
/// waits for a place, ``release(_:)`` gives it back; waiting callers start in arrival order when their host has room.
package actor HostLimiter {
  private let total: Int
  private let perHost: Int
  private var running = 0
  private var perHostRunning: [String: Int] = [:]
  private var waiting: [(host: String, continuation: CheckedContinuation<Void, Never>)] = []
  /// The hosts of the places taken with ``acquire(_:for:)`` and not given back yet, by request key.
  private var held: [String: [String]] = [:]

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

  /// Waits for a place for `host`, and takes it for the request `key` (a URL): given back by ``answered(_:)`` as soon
  /// as that request is answered, or by ``finished(_:for:)``, whichever comes first.
  package func acquire(_ host: String, for key: String) async {
    await acquire(host)
    held[key, default: []].append(host)
  }

  /// The request `key` was answered (or failed): one place taken for it with ``acquire(_:for:)`` is given back, if
  /// one is still held; nothing otherwise.
  package func answered(_ key: String) {
    guard let host = held[key]?.popLast() else { return }
    if held[key]?.isEmpty == true { held[key] = nil }
    release(host)
  }

  /// The work of a place taken for the request `key` ended: the place is given back unless ``answered(_:)`` gave
  /// it back already.
  package func finished(_ host: String, for key: String) {
    guard let index = held[key]?.firstIndex(of: host) else { return }
    held[key]?.remove(at: index)
    if held[key]?.isEmpty == true { held[key] = nil }
    release(host)
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
