import Foundation
import OfflineNewsHTTP
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What one data task brought back: the response, its body, whether the body went over the cap, and the redirects
/// it followed.
struct DataTaskOutcome: Sendable {
  var response: URLResponse
  /// The whole body; empty when ``bodyLimitExceeded`` is set.
  var body: Data
  /// The bytes read, or the `Content-Length` announced, when the body went over the cap.
  var bodyLimitExceeded: Int?
  /// The redirects followed.
  var redirects: RedirectChain
}

/// The delegate of a transport's one session: it hands each data task's callbacks to the collector registered for
/// that task, and follows the redirects that task's rule allows (``RedirectRule``).
final class SessionTasks: NSObject, URLSessionDataDelegate, Sendable {
  private let collectors = Mutex<[Int: TaskCollector]>([:])

  /// One data task, bounded by `timeout` seconds as a whole: on Linux, URLSession (libcurl) enforces only the idle
  /// timeout, so a server that drips its body byte by byte would otherwise keep the request alive for ever. When
  /// the time is up, `URLError(.timedOut)` is thrown at once and the data task is cancelled. With `maxBytes`, the
  /// transfer stops as soon as the body goes over it (or its `Content-Length` announces more), so that a hostile
  /// server cannot fill the memory. Redirects are followed within the task, by `redirects`, so that the deadline
  /// covers the whole chain whatever the scheduling between hops.
  ///
  /// It waits on a continuation rather than `data(for:)`: cancelling the Swift task of a `data(for:)` call can
  /// deadlock swift-corelibs-foundation (the task's status lock against the session's work queue) when the
  /// request completes at that moment. Here nothing holds a task lock while the data task is cancelled, and the
  /// caller's own cancellation does not reach the data task (it ends by its timeout).
  ///
  /// - Throws: `URLError` as a data task does.
  func run(
    _ request: URLRequest, on session: URLSession, timeout: TimeInterval, maxBytes: Int?, redirects: RedirectRule
  ) async throws -> DataTaskOutcome {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<DataTaskOutcome, any Error>, Never>) in
      let task = session.dataTask(with: request)
      let collector = TaskCollector(maxBytes: maxBytes, rule: redirects, once: OnceContinuation(continuation))
      collectors.withLock { $0[task.taskIdentifier] = collector }
      // A Dispatch timer, not a sleeping Swift task: the deadline must hold when the cooperative pool (one thread a
      // core) is busy, which would make a sleeping task wake late and let a slow answer through.
      collector.timer.start(after: timeout) {
        guard collector.once.resume(.failure(URLError(.timedOut))) else { return }
        if collector.mayCancelNow() { task.cancel() }
      }
      task.resume()
    }
    return try result.get()
  }

  private func collector(_ task: URLSessionTask) -> TaskCollector? {
    collectors.withLock { $0[task.taskIdentifier] }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    guard let collector = collector(dataTask) else { return completionHandler(.allow) }
    if collector.redirectSettled() { return completionHandler(.cancel) }
    completionHandler(collector.received(response) ? .allow : .cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard let collector = collector(dataTask) else { return }
    if collector.redirectSettled() || !collector.received(data), collector.mayCancelNow() { dataTask.cancel() }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    guard let collector = collector(task) else { return completionHandler(nil) }
    switch collector.answerRedirect(response.statusCode, to: request) {
    case .follow(let next): completionHandler(next)
    case .stop: completionHandler(nil)  // the 3xx response is the data task's answer
    case .cancelled: break  // the task is cancelled: answering now would trap (see CancelGate)
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let collector = collectors.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    collector?.completed(error)
  }
}

/// One data task's body as it arrives, up to a cap, and the continuation its first outcome resumes.
private final class TaskCollector: Sendable {
  private let state: Mutex<(data: Data, response: URLResponse?, stopped: Bool, redirects: RedirectChain)>
  private let maxBytes: Int?
  private let rule: RedirectRule
  let once: OnceContinuation<Result<DataTaskOutcome, any Error>>
  let timer = TimerBox()
  private let gate = Mutex(CancelGate())

  init(maxBytes: Int?, rule: RedirectRule, once: OnceContinuation<Result<DataTaskOutcome, any Error>>) {
    self.maxBytes = maxBytes
    self.rule = rule
    self.once = once
    state = Mutex((Data(), nil, false, RedirectChain(rule.original)))
  }

  /// How a redirect is answered.
  enum RedirectAnswer {
    /// Follow it with this request.
    case follow(URLRequest)
    /// The 3xx response is the answer (the rule does not follow it, or a cancel is waiting).
    case stop
    /// Not at all: the data task was cancelled, and swift-corelibs-foundation traps on an answer that comes after.
    case cancelled
  }

  /// The answer to a redirect to `request`, by the task's rule; the redirect is pending until its next callback.
  func answerRedirect(_ status: Int, to request: URLRequest) -> RedirectAnswer {
    let (cancelled, wanted) = gate.withLock { gate in
      if !gate.cancelled { gate.redirectPending = true }
      return (gate.cancelled, gate.wanted)
    }
    if cancelled { return .cancelled }
    if wanted { return .stop }
    return state.withLock { $0.redirects.follow(status, to: request, by: rule) }.map { .follow($0) } ?? .stop
  }

  /// Whether the data task may be cancelled now, which the caller then does; otherwise (a redirect's answer is
  /// pending) the cancel is made at the task's next callback (``redirectSettled()``).
  func mayCancelNow() -> Bool {
    gate.withLock { gate in
      gate.wanted = true
      guard !gate.redirectPending, !gate.cancelled else { return false }
      gate.cancelled = true
      return true
    }
  }

  /// A callback after a redirect's answer (a response, data): no redirect is pending any more. `true` when a cancel
  /// waited for that, and the caller is to cancel the task now.
  func redirectSettled() -> Bool {
    gate.withLock { gate in
      gate.redirectPending = false
      guard gate.wanted, !gate.cancelled else { return false }
      gate.cancelled = true
      return true
    }
  }

  /// Keeps the response; `false` when its `Content-Length` is over the cap (the transfer is then over).
  func received(_ response: URLResponse) -> Bool {
    state.withLock { $0.response = response }
    guard let maxBytes, response.expectedContentLength > Int64(maxBytes) else { return true }
    let redirects = state.withLock { state in
      state.stopped = true
      return state.redirects
    }
    finish(
      .success(
        DataTaskOutcome(
          response: response, body: Data(), bodyLimitExceeded: Int(response.expectedContentLength),
          redirects: redirects)))
    return false
  }

  /// Appends a chunk; `false` when the body went over the cap with it (the task is then to be cancelled).
  func received(_ data: Data) -> Bool {
    // Past the cap, every further chunk (libcurl delivers until the cancel takes effect) is dropped unread, and
    // what was kept is released.
    let over = state.withLock { state -> (URLResponse, Int, RedirectChain)? in
      guard !state.stopped else { return nil }
      let total = state.data.count + data.count
      guard let maxBytes, total > maxBytes else {
        state.data.append(data)
        return nil
      }
      state.stopped = true
      state.data = Data()
      return state.response.map { ($0, total, state.redirects) }
    }
    guard let (response, bytes, redirects) = over else { return true }
    finish(.success(DataTaskOutcome(response: response, body: Data(), bodyLimitExceeded: bytes, redirects: redirects)))
    return false
  }

  func completed(_ error: (any Error)?) {
    let (data, response, redirects) = state.withLock { ($0.data, $0.response, $0.redirects) }
    if let error {
      finish(.failure(error))
    } else if let response {
      finish(.success(DataTaskOutcome(response: response, body: data, redirects: redirects)))
    } else {
      finish(.failure(URLError(.badServerResponse)))
    }
  }

  private func finish(_ outcome: Result<DataTaskOutcome, any Error>) {
    timer.cancel()
    once.resume(outcome)
  }
}

/// When a data task may be cancelled. swift-corelibs-foundation traps ("Received callback for HTTP redirection, but
/// we're not waiting for it") when a task is cancelled between the delegate's `willPerformHTTPRedirection` and the
/// moment its work queue takes the completion handler's answer: the cancel changes the task's state under it. So a
/// cancel asked for while a redirect's answer is pending (a timeout during a redirect chain) waits for the task's
/// next callback, and a redirect that comes after a cancel is not answered.
private struct CancelGate {
  /// A redirect was answered and the task has not called back since.
  var redirectPending = false
  /// A cancel was asked for (the deadline passed, or the body went over its cap).
  var wanted = false
  /// The task was cancelled (or is being).
  var cancelled = false
}

/// A continuation resumed by the first of several racers; later resumes do nothing.
private final class OnceContinuation<T: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<T, Never>?>

  init(_ continuation: CheckedContinuation<T, Never>) {
    self.continuation = Mutex(continuation)
  }

  /// Resumes the continuation if no one has; returns whether this call did.
  @discardableResult
  func resume(_ value: T) -> Bool {
    let pending = continuation.withLock { pending in
      defer { pending = nil }
      return pending
    }
    pending?.resume(returning: value)
    return pending != nil
  }
}

/// A one-shot timer on a Dispatch queue that may be cancelled before it is started (then it never runs).
private final class TimerBox: Sendable {
  private let state = Mutex<(item: DispatchWorkItem?, cancelled: Bool)>((nil, false))

  /// Runs `body` on a global queue after `seconds` (at most one day), unless cancelled first.
  func start(after seconds: TimeInterval, _ body: @escaping @Sendable () -> Void) {
    state.withLock { state in
      guard !state.cancelled else { return }
      let item = DispatchWorkItem(block: body)
      state.item = item
      let nanoseconds = Int(max(0, min(seconds, 86_400)) * 1_000_000_000)
      DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: item)
    }
  }

  func cancel() {
    state.withLock { state in
      state.cancelled = true
      state.item?.cancel()  // marks the item; it never runs the block here
    }
  }
}
