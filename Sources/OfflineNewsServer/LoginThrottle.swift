import Foundation

/// Failed logins slowed down, per peer address: after the n-th failure in a row a peer waits `base × 2^(n-1)` (at
/// most `maximum`) — its failed answer is delayed that long, and any login it tries before that time has passed is
/// refused at once with 429 and `Retry-After`, without checking the password (so that parallel guesses gain
/// nothing and cost no argon2id hash). A success forgets the peer's failures; so does a quiet `forgetAfter`.
public actor LoginThrottle {
  private struct Record {
    var failures: Int
    var last: ContinuousClock.Instant
  }

  private let base: Duration
  private let maximum: Duration
  private let forgetAfter: Duration
  private var peers: [String: Record] = [:]

  /// - Parameters:
  ///   - base: the delay after a first failure; 0.5 s.
  ///   - maximum: the longest delay; 30 s.
  ///   - forgetAfter: failures older than this are forgotten; 15 min.
  public init(
    base: Duration = .milliseconds(500), maximum: Duration = .seconds(30), forgetAfter: Duration = .seconds(900)
  ) {
    self.base = base
    self.maximum = maximum
    self.forgetAfter = forgetAfter
  }

  /// How long `peer` must still wait before its next login is checked, or `nil` when it may try now.
  public func wait(for peer: String) -> Duration? {
    guard let record = peers[peer] else { return nil }
    let now = ContinuousClock.now
    if now - record.last > forgetAfter {
      peers[peer] = nil
      return nil
    }
    let until = record.last + delay(record.failures)
    return until > now ? until - now : nil
  }

  /// Records a failure of `peer`; returns how long to hold its answer (the delay of its failures so far).
  public func failed(_ peer: String) -> Duration {
    var record = peers[peer] ?? Record(failures: 0, last: .now)
    if ContinuousClock.now - record.last > forgetAfter { record.failures = 0 }
    record.failures += 1
    record.last = .now
    peers[peer] = record
    if peers.count > 10_000 { peers = peers.filter { ContinuousClock.now - $0.value.last <= forgetAfter } }
    return delay(record.failures)
  }

  /// Forgets the failures of `peer` (it logged in).
  public func succeeded(_ peer: String) { peers[peer] = nil }

  /// The number of failures in a row `peer` has on record.
  public func failures(of peer: String) -> Int { peers[peer]?.failures ?? 0 }

  private func delay(_ failures: Int) -> Duration {
    guard failures > 0 else { return .zero }
    let factor = 1 << min(failures - 1, 16)
    return min(base * factor, maximum)
  }
}
