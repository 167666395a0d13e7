import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What one data task brought back: the response, its body, and whether the body went over the cap.
struct DataTaskOutcome: Sendable {
  var response: URLResponse
  /// The whole body; empty when ``bodyLimitExceeded`` is set.
  var body: Data
  /// The bytes read, or the `Content-Length` announced, when the body went over the cap.
  var bodyLimitExceeded: Int?
}

/// The delegate of a transport's one session: it hands each data task's callbacks to the collector registered for
/// that task, and follows no redirect (the transport follows them itself, by its ``HTTPRequest/Redirects`` rule).
final class SessionTasks: NSObject, URLSessionDataDelegate, Sendable {
  private let collectors = Mutex<[Int: TaskCollector]>([:])

  /// One data task, bounded by `timeout` seconds as a whole: on Linux, URLSession (libcurl) enforces only the idle
  /// timeout, so a server that drips its body byte by byte would otherwise keep the request alive for ever. When
  /// the time is up, `URLError(.timedOut)` is thrown at once and the data task is cancelled. With `maxBytes`, the
  /// transfer stops as soon as the body goes over it (or its `Content-Length` announces more), so that a hostile
  /// server cannot fill the memory.
  ///
  /// It waits on a continuation rather than `data(for:)`: cancelling the Swift task of a `data(for:)` call can
  /// deadlock swift-corelibs-foundation (the task's status lock against the session's work queue) when the
  /// request completes at that moment. Here nothing holds a task lock while the data task is cancelled, and the
  /// caller's own cancellation does not reach the data task (it ends by its timeout).
  ///
  /// - Throws: `URLError` as a data task does.
  func run(_ request: URLRequest, on session: URLSession, timeout: TimeInterval, maxBytes: Int?) async throws
    -> DataTaskOutcome
  {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<DataTaskOutcome, any Error>, Never>) in
      let task = session.dataTask(with: request)
      let collector = TaskCollector(maxBytes: maxBytes, once: OnceContinuation(continuation))
      collectors.withLock { $0[task.taskIdentifier] = collector }
      collector.timer.start {
        try? await Task.sleep(nanoseconds: UInt64(max(0, min(timeout, 86_400)) * 1_000_000_000))
        guard !Task.isCancelled, collector.once.resume(.failure(URLError(.timedOut))) else { return }
        task.cancel()
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
    let proceed = collector(dataTask)?.received(response) ?? true
    completionHandler(proceed ? .allow : .cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard let collector = collector(dataTask), !collector.received(data) else { return }
    dataTask.cancel()
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    // The 3xx response is the data task's answer.
    completionHandler(nil)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let collector = collectors.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    collector?.completed(error)
  }
}

/// One data task's body as it arrives, up to a cap, and the continuation its first outcome resumes.
private final class TaskCollector: Sendable {
  private let state = Mutex<(data: Data, response: URLResponse?, stopped: Bool)>((Data(), nil, false))
  private let maxBytes: Int?
  let once: OnceContinuation<Result<DataTaskOutcome, any Error>>
  let timer = TimerBox()

  init(maxBytes: Int?, once: OnceContinuation<Result<DataTaskOutcome, any Error>>) {
    self.maxBytes = maxBytes
    self.once = once
  }

  /// Keeps the response; `false` when its `Content-Length` is over the cap (the transfer is then over).
  func received(_ response: URLResponse) -> Bool {
    state.withLock { $0.response = response }
    guard let maxBytes, response.expectedContentLength > Int64(maxBytes) else { return true }
    state.withLock { $0.stopped = true }
    finish(.success(DataTaskOutcome(response: response, body: Data(), bodyLimitExceeded: Int(response.expectedContentLength))))
    return false
  }

  /// Appends a chunk; `false` when the body went over the cap with it (the task is then to be cancelled).
  func received(_ data: Data) -> Bool {
    // Past the cap, every further chunk (libcurl delivers until the cancel takes effect) is dropped unread, and
    // what was kept is released.
    let over = state.withLock { state -> (URLResponse, Int)? in
      guard !state.stopped else { return nil }
      let total = state.data.count + data.count
      guard let maxBytes, total > maxBytes else {
        state.data.append(data)
        return nil
      }
      state.stopped = true
      state.data = Data()
      return state.response.map { ($0, total) }
    }
    guard let (response, bytes) = over else { return true }
    finish(.success(DataTaskOutcome(response: response, body: Data(), bodyLimitExceeded: bytes)))
    return false
  }

  func completed(_ error: (any Error)?) {
    let (data, response) = state.withLock { ($0.data, $0.response) }
    if let error {
      finish(.failure(error))
    } else if let response {
      finish(.success(DataTaskOutcome(response: response, body: data)))
    } else {
      finish(.failure(URLError(.badServerResponse)))
    }
  }

  private func finish(_ outcome: Result<DataTaskOutcome, any Error>) {
    timer.cancel()
    once.resume(outcome)
  }
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

/// A timer task that may be cancelled before it is started (then it never runs).
private final class TimerBox: Sendable {
  private let state = Mutex<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

  func start(_ body: @escaping @Sendable () async -> Void) {
    state.withLock { state in
      guard !state.cancelled else { return }
      state.task = Task { await body() }
    }
  }

  func cancel() {
    let task = state.withLock { state in
      state.cancelled = true
      return state.task
    }
    task?.cancel()
  }
}
