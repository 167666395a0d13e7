import CSQLite
import Synchronization

/// A switch that stops every later commit of a store's writer, decided where SQLite decides a commit: its commit
/// hook, which turns a commit into a rollback when it says no (<https://www.sqlite.org/c3ref/commit_hook.html>).
/// A program that is told to stop (Ctrl-C) while a write is under way closes the gate, and then knows exactly what
/// the store holds: the commits the gate let through before it closed, and nothing after (a transaction open at the
/// close is rolled back if the writer reaches its commit, and by SQLite at the next open if the process ends first).
///
/// Install it with ``StorageContext/gateCommits(_:)``; it counts the commits from then on, or from ``count()`` on.
package final class CommitGate: Sendable {
  private struct State {
    var closed = false
    var counting: Bool
    var admitted = 0
    /// The connection it is installed on, while it is: what ``close()`` interrupts (the `sqlite3 *` as its bit
    /// pattern, a value the lock can hold across threads).
    var handle: UInt?
  }
  private let state: Mutex<State>

  /// - Parameter counting: whether the commits it lets through are counted from the start; else from ``count()``
  ///   on (the commits a store makes to set itself up are not the write's).
  package init(counting: Bool = true) {
    state = Mutex(State(counting: counting))
  }

  /// Counts the commits it lets through from now on (none counted before).
  package func count() {
    state.withLock { state in
      guard !state.counting else { return }
      state.counting = true
      state.admitted = 0
    }
  }

  /// Closes the gate: no commit of the store is made from now on, and the statement the writer is running is
  /// interrupted (`sqlite3_interrupt`: it fails, its transaction is rolled back), so that a long save stops at once
  /// instead of going on to a commit that would be refused.
  ///
  /// - Returns: how many commits the gate let through and counted before: `0` means that no write counted reached
  ///   the store.
  package func close() -> Int {
    state.withLock { state in
      state.closed = true
      state.handle.flatMap(OpaquePointer.init(bitPattern:)).map(sqlite3_interrupt)
      return state.admitted
    }
  }

  /// Closes the gate only when no commit has gone through it yet: for a write that must be whole (one file's
  /// import), stopped before it reached the store or left to finish.
  ///
  /// - Returns: whether it closed (no counted commit reached the store, and no commit will).
  package func closeIfNoneAdmitted() -> Bool {
    state.withLock { state in
      guard state.admitted == 0 else { return false }
      state.closed = true
      state.handle.flatMap(OpaquePointer.init(bitPattern:)).map(sqlite3_interrupt)
      return true
    }
  }

  /// Whether the commit SQLite is about to make may be made; counted when it may.
  func admit() -> Bool {
    state.withLock { state in
      guard !state.closed else { return false }
      if state.counting { state.admitted += 1 }
      return true
    }
  }

  /// Stops interrupting the connection it was installed on (before that connection closes, or another gate is
  /// installed).
  func detach() { state.withLock { $0.handle = nil } }

  /// Installs `gate` as the commit hook of `connection` (`nil`: none), kept alive by the connection.
  static func install(_ gate: CommitGate?, on connection: Connection) {
    connection.commitGate?.detach()
    connection.commitGate = gate
    let handle = UInt(bitPattern: connection.handle)
    gate?.state.withLock { $0.handle = handle }
    guard let gate else {
      sqlite3_commit_hook(connection.handle, nil, nil)
      return
    }
    sqlite3_commit_hook(
      connection.handle,
      { context in
        guard let context else { return 0 }
        // Non-zero turns the commit into a rollback.
        return Unmanaged<CommitGate>.fromOpaque(context).takeUnretainedValue().admit() ? 0 : 1
      }, Unmanaged.passUnretained(gate).toOpaque())
  }
}
