import Dispatch
import Foundation
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

  /// Turns SIGINT's default action off and notes the signal from now on.
  init() {
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
