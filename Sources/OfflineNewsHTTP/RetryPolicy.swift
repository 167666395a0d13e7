import Foundation
import OfflineNewsModel

/// When a failed request is tried again, how long to wait first, and when to give up.
///
/// - Retried: transport failures (refused, reset, cut short, timed out, host not found…, `HTTPError.isRetryable`)
///   and responses with status `5xx` or `429 Too Many Requests`, whatever their body. Never: other statuses, TLS
///   failures, unsupported URLs, redirect loops.
/// - The wait before retry *n* (1 for the first retry) is exponential backoff with full jitter: a uniformly random
///   duration in `0…min(maxDelay, initialDelay × 2^(n−1))` seconds
///   (<https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/>).
/// - A `Retry-After` header on the failed response (RFC 9110 §10.2.3: delay-seconds or an HTTP-date,
///   <https://www.rfc-editor.org/rfc/rfc9110#name-retry-after>) replaces that wait; when it asks for more than
///   `maxRetryAfter` seconds, the request is not retried.
/// - At most `maxAttempts` attempts in all, and, with `maxTotalTime`, no retry is started unless its wait plus
///   one whole per-attempt timeout ends within that many seconds of the first attempt's start: the whole call
///   never takes longer than `maxTotalTime` (plus scheduling slack).
/// - When it gives up, the last attempt's outcome stands, unchanged: its error, or its `5xx`/`429` response (which
///   the client reads like any other: a NewsAPI error body, a Parse error).
///
/// Waiting, the clock and the random source are injected, so tests neither wait nor guess:
/// ```swift
/// let policy = RetryPolicy(maxAttempts: 3, initialDelay: 0.001, sleep: { _ in }, random: { $0.upperBound })
/// let transport = CurlHTTPTransport(timeout: 2, retry: policy)
/// ```
public struct RetryPolicy: Sendable {
  /// Attempts in all, the first included; `1` never retries.
  package var maxAttempts: Int
  /// Seconds: the cap of the first retry's random wait; each later retry doubles it.
  package var initialDelay: TimeInterval
  /// Seconds: the largest cap of a computed (jittered) wait.
  package var maxDelay: TimeInterval
  /// Seconds from the start of the first attempt within which every retry must be able to finish; `nil` for no
  /// limit besides ``maxAttempts``.
  package var maxTotalTime: TimeInterval?
  /// Seconds: the longest `Retry-After` honoured; a server asking for longer is not retried.
  package var maxRetryAfter: TimeInterval
  /// Waits the given number of seconds; throws when the wait is cancelled (then no retry is made).
  package var sleep: @Sendable (TimeInterval) async throws -> Void
  /// The current time, for ``maxTotalTime`` and HTTP-date `Retry-After` values.
  package var now: @Sendable () -> Date
  /// A uniformly random number in the given range, for the jitter.
  package var random: @Sendable (ClosedRange<Double>) -> Double

  /// - Parameters:
  ///   - maxAttempts: attempts in all, at least 1; default 3.
  ///   - initialDelay: seconds; default 0.25.
  ///   - maxDelay: seconds; default 4.
  ///   - maxTotalTime: seconds, or `nil` (default) for no time cap.
  ///   - maxRetryAfter: seconds; default 60.
  ///   - sleep: default `Task.sleep`.
  ///   - now: default `Date()`.
  ///   - random: default `Double.random(in:)`.
  public init(
    maxAttempts: Int = 3, initialDelay: TimeInterval = 0.25, maxDelay: TimeInterval = 4,
    maxTotalTime: TimeInterval? = nil, maxRetryAfter: TimeInterval = 60,
    sleep: @escaping @Sendable (TimeInterval) async throws -> Void = RetryPolicy.taskSleep,
    now: @escaping @Sendable () -> Date = { Date() },
    random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
  ) {
    self.maxAttempts = max(1, maxAttempts)
    self.initialDelay = max(0, initialDelay)
    self.maxDelay = max(0, maxDelay)
    self.maxTotalTime = maxTotalTime
    self.maxRetryAfter = max(0, maxRetryAfter)
    self.sleep = sleep
    self.now = now
    self.random = random
  }

  /// One attempt, never retried.
  public static let none = RetryPolicy(maxAttempts: 1)

  /// 3 attempts, waits of up to 0.25 s then 0.5 s (jittered), `Retry-After` up to 60 s, no time cap.
  public static let standard = RetryPolicy()

  /// `Task.sleep` for a number of seconds: the default `sleep` of `init`.
  @usableFromInline @Sendable package static func taskSleep(_ seconds: TimeInterval) async throws {
    guard seconds > 0 else { return }
    try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1_000_000_000))
  }

  /// A failed attempt, as the retry loop sees it.
  package struct Failure: Error, Sendable {
    /// The attempt's error, thrown as is when no retry follows.
    package var error: HTTPError
    /// Seconds the server asked to wait (`Retry-After`), if it did.
    package var retryAfter: TimeInterval?

    package init(_ error: HTTPError, retryAfter: TimeInterval? = nil) {
      self.error = error
      self.retryAfter = retryAfter
    }
  }

  /// `true` for `429` and `5xx`.
  package static func isRetryable(status: Int) -> Bool { status == 429 || (500..<600).contains(status) }

  /// The jittered backoff before retry number `retry` (1 for the first retry), in seconds.
  package func backoff(beforeRetry retry: Int) -> TimeInterval {
    let exponent = Double(min(max(retry, 1) - 1, 60))
    let cap = min(maxDelay, initialDelay * pow(2, exponent))
    guard cap > 0 else { return 0 }
    return min(cap, max(0, random(0...cap)))
  }

  /// The wait before retry number `retry`: `retryAfter` when the server sent one, else ``backoff(beforeRetry:)``.
  /// `nil` when `retryAfter` exceeds ``maxRetryAfter`` (do not retry).
  package func delay(beforeRetry retry: Int, retryAfter: TimeInterval?) -> TimeInterval? {
    if let retryAfter {
      return retryAfter <= maxRetryAfter ? max(0, retryAfter) : nil
    }
    return backoff(beforeRetry: retry)
  }

  /// Runs `attempt` (numbered from 1) until it succeeds, fails in a way that is not retried
  /// (``HTTPError/isRetryable``), or a cap is reached; then throws the last failure's error unchanged.
  ///
  /// - Parameters:
  ///   - attemptTimeout: seconds one attempt may take at most, for the ``maxTotalTime`` check; `nil` counts 0.
  ///   - attempt: one try.
  /// - Throws: the last attempt's ``HTTPError``.
  package func run<T>(
    attemptTimeout: TimeInterval? = nil, _ attempt: (Int) async throws(Failure) -> T
  ) async throws(HTTPError) -> T {
    try await attempts(attemptTimeout: attemptTimeout) { number in
      do throws(Failure) {
        return .succeeded(try await attempt(number))
      } catch {
        return .failed(error)
      }
    }
  }

  /// What one attempt came to.
  package enum Outcome<T> {
    /// Done: no retry.
    case succeeded(T)
    /// Worth another attempt (a `5xx` or `429` response): retried if the caps allow, else the answer.
    case retryable(T, retryAfter: TimeInterval?)
    /// Failed: retried if the error ``HTTPError/isRetryable`` and the caps allow, else thrown.
    case failed(Failure)
  }

  /// The retry loop: runs `attempt` (numbered from 1) until an outcome is not retried.
  package func attempts<T>(attemptTimeout: TimeInterval?, _ attempt: (Int) async -> Outcome<T>) async throws(HTTPError)
    -> T
  {
    let start = now()
    var number = 1
    while true {
      let given: Result<T, HTTPError>
      let retryAfter: TimeInterval?
      switch await attempt(number) {
      case .succeeded(let value): return value
      case .retryable(let value, let seconds):
        given = .success(value)
        retryAfter = seconds
      case .failed(let failure):
        guard failure.error.isRetryable else { throw failure.error }
        given = .failure(failure.error)
        retryAfter = failure.retryAfter
      }
      guard number < maxAttempts, !Task.isCancelled, let wait = delay(beforeRetry: number, retryAfter: retryAfter),
        maxTotalTime.map({ now().timeIntervalSince(start) + wait + (attemptTimeout ?? 0) <= $0 }) ?? true
      else { return try given.get() }
      do {
        try await sleep(wait)
      } catch {
        return try given.get()
      }
      guard !Task.isCancelled else { return try given.get() }
      number += 1
    }
  }

  /// The seconds to wait that a `Retry-After` value asks for, or `nil` when it is neither form.
  ///
  /// RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`. Delay-seconds are a non-negative decimal integer;
  /// an HTTP-date is IMF-fixdate (`Fri, 31 Dec 1999 23:59:59 GMT`) or, as recipients must also accept (§5.6.7),
  /// RFC 850 (`Friday, 31-Dec-99 23:59:59 GMT`) or asctime (`Fri Dec 31 23:59:59 1999`). A date in the past is 0.
  package static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
    let text = value.trimmingWhiteSpace
    guard !text.isEmpty else { return nil }
    if text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
      return Double(text).map { min($0, 1e9) }
    }
    guard let date = httpDate(text) else { return nil }
    return max(0, date.timeIntervalSince(now))
  }

  /// Parses an HTTP-date in any of the three forms of RFC 9110 §5.6.7 (UTC): ``Timestamp/init(httpDate:)``, the
  /// one date reader of the package.
  package static func httpDate(_ text: String) -> Date? { Timestamp(httpDate: text)?.date }
}
