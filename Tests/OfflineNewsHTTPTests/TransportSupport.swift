import Foundation
import OfflineNewsHTTP
import Synchronization

/// Records the waits a ``RetryPolicy`` asks for, and returns at once: tests never wait for a backoff.
final class WaitRecorder: Sendable {
  private let recorded = Mutex<[TimeInterval]>([])

  var waits: [TimeInterval] { recorded.withLock { $0 } }

  /// A policy of `attempts` attempts whose waits are recorded, not waited; the jitter takes the cap (0.01 s, then
  /// 0.02 s, …).
  func policy(attempts: Int = 3) -> RetryPolicy {
    RetryPolicy(
      maxAttempts: attempts, initialDelay: 0.01, maxDelay: 1,
      sleep: { seconds in self.recorded.withLock { $0.append(seconds) } }, random: { $0.upperBound })
  }
}

/// Runs one request and returns its error, or `nil` if it got a response.
func failure(_ transport: some HTTPTransport, _ request: HTTPRequest) async -> HTTPError? {
  do {
    _ = try await transport.send(request)
    return nil
  } catch {
    return error
  }
}
