import Dispatch
import Foundation
import OfflineNews
import OfflineNewsStorage
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Ctrl-C (SIGINT) while a command works, taken over so that the command ends as it chooses instead of being killed
/// where it stands: `news fetch --all` reports the sources that finished, clears its progress line and exits 130.
///
/// From ``init()`` to ``remove()``, SIGINT's default action is off and a signal source notes it instead. The work
/// runs beside ``wait()``, which returns at the first of the signal and ``settle()`` (the work is done):
/// ``interrupted`` says which. ``report(_:)`` runs a piece of reporting only while no interruption has come, under
/// the same lock, so that nothing is reported after the command has begun to say what it did. A second Ctrl-C,
/// after the first, ends the process at once (the default action is restored when the first is noted).
final class Interruption: Sendable {
  private enum Outcome { case pending, settled, interrupted }

  private struct State {
    var outcome = Outcome.pending
    var waiting: CheckedContinuation<Void, Never>?
    var previous = sigaction()
    var removed = false
  }
  private let state = Mutex(State())
  /// The signal source; its methods may be called from any thread (Dispatch's sources are thread-safe).
  nonisolated(unsafe) private let source: any DispatchSourceSignal

  /// What runs at the signal on the signal's queue, before anything else, holding the lock ``report(_:)`` takes.
  private let immediately: (@Sendable () -> Void)?

  /// Turns SIGINT's default action off and notes the signal from now on; `immediately` runs at the signal, on the
  /// signal's own queue (not after the work lets a task of the cooperative pool run), before ``wait()`` returns.
  init(immediately: (@Sendable () -> Void)? = nil) {
    self.immediately = immediately
    source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "news SIGINT"))
    state.withLock { state in
      var ignore = sigaction()
      ignore.__sigaction_handler.sa_handler = SIG_IGN
      sigaction(SIGINT, &ignore, &state.previous)
    }
    source.setEventHandler { [weak self] in self?.interrupt() }
    source.resume()
  }

  /// Whether SIGINT came before ``settle()``.
  var interrupted: Bool { state.withLock { $0.outcome == .interrupted } }

  /// Returns once SIGINT has come or the work is done (``settle()``), whichever was first.
  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { state in
        guard state.outcome == .pending else { return true }
        state.waiting = continuation
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Says the work is done: ``wait()`` returns; a SIGINT after it changes nothing but gives the next one its default
  /// action.
  func settle() { end(.settled) }

  /// Runs `body` unless SIGINT has come, holding the lock that noting the signal takes: what `body` reports is
  /// reported before the command begins its last words, or not at all.
  func report(_ body: () -> Void) {
    state.withLock { state in
      guard state.outcome != .interrupted else { return }
      body()
    }
  }

  /// Stops noting SIGINT and gives it back its action of before ``init()``.
  func remove() {
    state.withLock { state in
      guard !state.removed else { return }
      state.removed = true
      source.cancel()
      sigaction(SIGINT, &state.previous, nil)
    }
  }

  private func interrupt() {
    if let immediately { state.withLock { _ in immediately() } }
    end(.interrupted)
    // A second Ctrl-C ends the process at once, as it would have without this.
    signal(SIGINT, SIG_DFL)
  }

  private func end(_ outcome: Outcome) {
    let waiting: CheckedContinuation<Void, Never>? = state.withLock { state in
      guard state.outcome == .pending else { return nil }
      state.outcome = outcome
      defer { state.waiting = nil }
      return state.waiting
    }
    waiting?.resume()
  }
}

extension Interruption {
  /// How a write Ctrl-C interrupts ends (``endingAtOnce(_:through:_:ending:)``).
  enum Stop {
    /// The write must be whole (a file's import: one transaction): stopped when none of its commits has gone
    /// through yet, else left to finish (its commit is under way). Its commits are counted from the work's call of
    /// `count()` of the gate it is given on (when its transaction is under way: the store's own set-up commits
    /// before are not the file's).
    case wholeOrNothing
    /// Each commit is whole (a sync's pages, each with its cursor): stopped after the commits made.
    case afterCommitsMade
  }

  /// Runs `work` with Ctrl-C (SIGINT) taken over, for a write that cannot stop halfway by itself but loses nothing
  /// when the process ends where it stands. At the signal, on the signal's queue: the store's commits are gated
  /// (``CommitGate``, installed before `work` starts), so that what the store holds is known — for
  /// ``Stop/wholeOrNothing`` nothing, unless a commit had begun (then the work finishes and is reported as usual);
  /// for ``Stop/afterCommitsMade`` the commits made. When it stops, `ending` runs (it clears the progress line and
  /// says what is kept) and the process exits at once with 130 (``ExitCode/interrupted``), without waiting for the
  /// work (a million-article save takes a minute): a transaction not committed is rolled back by SQLite, at its
  /// commit (the gate says no) or at the next open (<https://www.sqlite.org/atomiccommit.html>). `work` reports its
  /// progress through ``report(_:)``, so that nothing is drawn after `ending` began.
  ///
  /// - Returns: what `work` returns when it was not stopped.
  /// - Throws: what `work` throws.
  static func endingAtOnce<Value: Sendable, Failure: Error>(
    _ stop: Stop, through repository: NewsRepository,
    _ work: @escaping @Sendable (Interruption, CommitGate) async throws(Failure) -> Value,
    ending: @escaping @Sendable () -> Void
  ) async throws(Failure) -> Value {
    let gate = CommitGate(counting: stop != .wholeOrNothing)
    // A store that cannot be gated (closed) is the work's to report.
    try? await repository.gateCommits(gate)
    let interruption = Interruption {
      let stopped: Bool
      switch stop {
      case .wholeOrNothing: stopped = gate.closeIfNoneAdmitted()
      case .afterCommitsMade:
        _ = gate.close()
        stopped = true
      }
      guard stopped else { return }
      ending()
      fflush(nil)  // every C stream: what `print` buffered
      _exit(ExitCode.interrupted.rawValue)
    }
    defer { interruption.remove() }
    let task = Task { () async -> Result<Value, Failure> in
      defer { interruption.settle() }
      do throws(Failure) {
        return .success(try await work(interruption, gate))
      } catch {
        return .failure(error)
      }
    }
    // Interrupted or not, the work ends (an interruption that stops ends the process before).
    return try await task.value.get()
  }
}
