import Foundation

extension Process {
  /// Waits for the process to exit without blocking a thread: `waitUntilExit()` blocks its caller, and called from
  /// a test's task it takes one of the cooperative pool's few threads (two on a 2-core machine) away from every other
  /// test running in parallel (readers of a concurrency test were seen starved for the whole of a save).
  public func exited() async {
    while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
    waitUntilExit()  // reaped already: returns at once, and makes terminationStatus safe to read
  }
}
