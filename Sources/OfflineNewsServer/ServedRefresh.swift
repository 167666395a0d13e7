import Foundation
import OfflineNews
import OfflineNewsStorage
import Synchronization

extension ServedLibrary {
  /// Refreshes the subscriptions (``sources``), all of them or those named `names`, through the library's refresh
  /// of a list (``NewsRepository/refresh(_:in:options:progress:)`` in ``subscriptions``, with ``refreshOptions``):
  /// the one path of `news fetch --all`, of the server's periodic refresh and of the Miniflux API's
  /// `PUT /v1/feeds/refresh` and `PUT /v1/feeds/{id}/refresh`.
  ///
  /// Each refresh that runs is reported to ``refreshed`` once done (unless cancelled: the server is stopping).
  ///
  /// One refresh runs at a time, shared by the copies of the library: a call while one is under way that covers
  /// what it asks for (every source, or a list holding `names`) waits for that one and returns its report — a refresh
  /// is never started twice; a call asking for more waits for it to end, then starts its own. After
  /// ``stopRefreshing()``, nothing is started.
  ///
  /// - Parameter names: the subscriptions to refresh; `nil` for every one.
  /// - Returns: the report of the refresh that ran (a joined refresh's may hold other sources too); `nil` when none
  ///   did: no subscription (of those names), ``sources`` failed, or the server is stopping.
  /// - Throws: the ``StorageError`` that makes the store unwritable (``NewsRepository/isReadOnly``: a read-only file
  ///   or folder, a full disk) before anything is read, since nothing read could be saved; what ``sources`` throws.
  public func refresh(only names: Set<String>? = nil) async throws -> RefreshReport? {
    try refusingUnwritableStore()
    let library = self
    return await refreshes.run(names) {
      guard var list = try? await library.sources() else { return nil }
      if let names { list = list.filter { names.contains($0.name) } }
      guard !list.isEmpty else { return nil }
      let report = await library.repository.refresh(list, in: library.subscriptions, options: library.refreshOptions)
      if !Task.isCancelled { library.refreshed(report) }
      return report
    }
  }

  /// Starts ``refresh(only:)`` of every subscription in the background, unless one is under way already, and
  /// returns at once (Miniflux's "refresh all feeds" answers before the feeds are read).
  ///
  /// - Throws: what ``refresh(only:)`` throws up front.
  public func startRefresh() throws {
    try refusingUnwritableStore()
    let library = self
    Task { _ = try? await library.refresh() }
  }

  /// Cancels the refresh under way, waits for it to end, and starts none after (the server is stopping).
  public func stopRefreshing() async { await refreshes.stop() }

  /// Throws the store's read-only cause when it cannot be written (``NewsRepository/isReadOnly``).
  private func refusingUnwritableStore() throws {
    guard repository.isReadOnly else { return }
    throw repository.readOnlyCause ?? StorageError(kind: .readOnly, path: repository.databasePath)
  }
}

/// The refresh of a ``ServedLibrary`` under way, if any: one at a time (``ServedLibrary/refresh(only:)``).
final class ServedRefreshes: Sendable {
  private struct Running {
    var id: UInt64
    /// The sources it refreshes; `nil` for every one.
    var names: Set<String>?
    var task: Task<RefreshReport?, Never>
  }

  private struct State {
    var lastID: UInt64 = 0
    var running: Running?
    var stopped = false
    var joined = 0
  }

  private let state = Mutex(State())

  /// How many refreshes were started, and how many calls joined one under way instead.
  var counts: (started: Int, joined: Int) { state.withLock { (Int($0.lastID), $0.joined) } }

  /// `work`'s report for `names` (`nil`: every source): the report of the refresh under way when it covers them,
  /// else of a refresh started once none is under way. `nil` once ``stop()`` was called.
  func run(_ names: Set<String>?, _ work: @escaping @Sendable () async -> RefreshReport?) async -> RefreshReport? {
    while true {
      let (task, covers) = state.withLock { state -> (Task<RefreshReport?, Never>?, Bool) in
        if let running = state.running {
          let covers = running.names.map { running in names.map { $0.isSubset(of: running) } ?? false } ?? true
          if covers { state.joined += 1 }
          return (running.task, covers)
        }
        if state.stopped { return (nil, true) }
        state.lastID += 1
        let id = state.lastID
        let task = Task {
          let report = await work()
          self.finished(id)
          return report
        }
        state.running = Running(id: id, names: names, task: task)
        return (task, true)
      }
      guard let task else { return nil }
      let report = await task.value
      if covers { return report }
    }
  }

  /// Cancels the refresh under way and waits for it; none is started after.
  func stop() async {
    let task = state.withLock { state in
      state.stopped = true
      return state.running?.task
    }
    task?.cancel()
    _ = await task?.value
  }

  private func finished(_ id: UInt64) {
    state.withLock { state in
      if state.running?.id == id { state.running = nil }
    }
  }
}
