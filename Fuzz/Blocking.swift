// Shared by the harnesses that call async library code (scripts/fuzz.sh compiles it with `importer` and `search`):
// libFuzzer calls the target synchronously, so each async call runs in a task and the fuzzer's thread waits for it.
import Dispatch
import Synchronization

/// Runs `body` in a task and waits for its result.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
  let outcome = Mutex<Result<T, any Error>?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    let result: Result<T, any Error>
    do { result = .success(try await body()) } catch { result = .failure(error) }
    outcome.withLock { $0 = result }
    done.signal()
  }
  done.wait()
  guard let result = outcome.withLock({ $0 }) else { fatalError("the task ended without a result") }
  return result
}
