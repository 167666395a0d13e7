import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One data task, bounded by `timeout` seconds as a whole: on Linux, URLSession (libcurl) enforces only the idle
/// timeout, so a server that drips its body byte by byte would otherwise keep the request alive for ever. When the
/// time is up, `URLError(.timedOut)` is thrown at once and the data task is cancelled.
///
/// It uses a completion handler rather than `data(for:)`: cancelling the Swift task of a `data(for:)` call can
/// deadlock swift-corelibs-foundation (the task's status lock against the session's work queue) when the request
/// completes at that moment. Here nothing holds a task lock while the data task is cancelled, and the caller's own
/// cancellation does not reach the data task (it ends by its timeout).
func boundedDataTask(_ request: URLRequest, session: URLSession, timeout: TimeInterval) async throws -> (
  Data, URLResponse
) {
  let result = await withCheckedContinuation {
    (continuation: CheckedContinuation<Result<(Data, URLResponse), any Error>, Never>) in
    let once = OnceContinuation(continuation)
    let timer = TimerBox()
    let task = session.dataTask(with: request) { data, response, error in
      timer.cancel()
      if let error {
        once.resume(.failure(error))
      } else if let response {
        once.resume(.success((data ?? Data(), response)))
      } else {
        once.resume(.failure(URLError(.badServerResponse)))
      }
    }
    timer.start {
      try? await Task.sleep(nanoseconds: UInt64(max(0, min(timeout, 86_400)) * 1_000_000_000))
      guard !Task.isCancelled, once.resume(.failure(URLError(.timedOut))) else { return }
      task.cancel()
    }
    task.resume()
  }
  return try result.get()
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
