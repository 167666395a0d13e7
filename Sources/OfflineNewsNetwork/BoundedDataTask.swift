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

/// The body of a response went over the byte limit of ``cappedDataTask(_:configuration:timeout:maxBytes:)``.
struct BodyOverLimit: Error {
  /// The response, with the body as far as it was read (at most the limit plus one chunk).
  var response: URLResponse
  /// The bytes read, or the `Content-Length` announced, when it was stopped.
  var bytes: Int
}

/// One data task on its own session that stops reading as soon as the body goes over `maxBytes` (or its
/// `Content-Length` announces more), so that a hostile server cannot fill the memory, bounded by `timeout` seconds as
/// a whole like ``boundedDataTask(_:session:timeout:)``.
///
/// - Throws: ``BodyOverLimit`` when the body is too large; `URLError` like a data task.
func cappedDataTask(
  _ request: URLRequest, configuration: URLSessionConfiguration, timeout: TimeInterval, maxBytes: Int
) async throws -> (Data, URLResponse) {
  let result = await withCheckedContinuation {
    (continuation: CheckedContinuation<Result<(Data, URLResponse), any Error>, Never>) in
    let once = OnceContinuation(continuation)
    let delegate = CappedDataDelegate(maxBytes: maxBytes, once: once)
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    let task = session.dataTask(with: request)
    let timer = TimerBox()
    delegate.onFinish = { timer.cancel() }
    timer.start {
      try? await Task.sleep(nanoseconds: UInt64(max(0, min(timeout, 86_400)) * 1_000_000_000))
      guard !Task.isCancelled, once.resume(.failure(URLError(.timedOut))) else { return }
      task.cancel()
    }
    task.resume()
    session.finishTasksAndInvalidate()
  }
  return try result.get()
}

/// Collects a body up to a limit; cancels the task past it.
private final class CappedDataDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // @unchecked: `state` is guarded by its mutex; `onFinish` is set before the task starts and only read after.
  private let state = Mutex<(data: Data, response: URLResponse?, stopped: Bool)>((Data(), nil, false))
  private let maxBytes: Int
  private let once: OnceContinuation<Result<(Data, URLResponse), any Error>>
  var onFinish: @Sendable () -> Void = {}

  init(maxBytes: Int, once: OnceContinuation<Result<(Data, URLResponse), any Error>>) {
    self.maxBytes = maxBytes
    self.once = once
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    state.withLock { $0.response = response }
    if response.expectedContentLength > Int64(maxBytes) {
      state.withLock { $0.stopped = true }
      onFinish()
      once.resume(.failure(BodyOverLimit(response: response, bytes: Int(response.expectedContentLength))))
      completionHandler(.cancel)
      return
    }
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    // Past the limit, every further chunk (libcurl delivers until the cancel takes effect) is dropped unread, and
    // what was kept is released.
    let over = state.withLock { state -> (URLResponse, Int)? in
      guard !state.stopped else { return nil }
      let total = state.data.count + data.count
      guard total > maxBytes else {
        state.data.append(data)
        return nil
      }
      state.stopped = true
      state.data = Data()
      return state.response.map { ($0, total) }
    }
    if let (response, bytes) = over {
      onFinish()
      once.resume(.failure(BodyOverLimit(response: response, bytes: bytes)))
      dataTask.cancel()
    }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(SameOriginRedirects.allows(from: task.originalRequest?.url, to: request.url) ? request : nil)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    onFinish()
    let (data, response) = state.withLock { ($0.data, $0.response) }
    if let error {
      once.resume(.failure(error))
    } else if let response {
      once.resume(.success((data, response)))
    } else {
      once.resume(.failure(URLError(.badServerResponse)))
    }
  }
}

/// A session delegate that follows a redirect only within the same origin (scheme, host and port, RFC 6454): the
/// headers of a request (an API key, a Parse REST key or session token) go wherever URLSession follows it, and must
/// not reach another host. A redirect elsewhere is not followed: the 3xx response is the answer.
final class SameOriginRedirects: NSObject, URLSessionTaskDelegate, Sendable {
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(Self.allows(from: task.originalRequest?.url, to: request.url) ? request : nil)
  }

  static func allows(from original: URL?, to target: URL?) -> Bool {
    guard let original, let target else { return false }
    func origin(_ url: URL) -> (String, String, Int?) {
      let scheme = url.scheme?.lowercased() ?? ""
      let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
      return (scheme, url.host?.lowercased() ?? "", port)
    }
    return origin(original) == origin(target)
  }
}
