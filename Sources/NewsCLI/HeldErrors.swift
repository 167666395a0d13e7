import Synchronization

/// Standard error while a full-screen terminal UI owns the screen (`news read`): what is written meanwhile — the store's
/// one-time migration notice at the reader's first write, say — is held and written after the screen is given back,
/// so that it neither scrolls curses' screen (rows then act on other articles than they show) nor is lost.
final class HeldErrors: Sendable {
  private let state = Mutex<(holding: Bool, lines: [String])>((false, []))
  private let through: @Sendable (String) -> Void

  /// Errors written through `through` (the console's standard error) when not held.
  init(through: @escaping @Sendable (String) -> Void) { self.through = through }

  /// Writes `text` now, or keeps it for ``release()`` while held.
  func write(_ text: String) {
    let now = state.withLock { state -> Bool in
      if state.holding { state.lines.append(text) }
      return !state.holding
    }
    if now { through(text) }
  }

  /// From now on, keeps what is written.
  func hold() { state.withLock { $0.holding = true } }

  /// Writes what was kept, in order, and writes through again.
  func release() {
    let lines = state.withLock { state -> [String] in
      state.holding = false
      defer { state.lines = [] }
      return state.lines
    }
    for line in lines { through(line) }
  }
}
