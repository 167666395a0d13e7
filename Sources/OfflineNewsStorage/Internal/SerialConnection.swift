/// The one owner of one SQLite connection: every use of the connection runs on this actor, on its own thread.
actor SerialConnection {
  private let executor: QueueExecutor
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  let connection: Connection

  init(_ connection: Connection, label: String) {
    self.connection = connection
    executor = QueueExecutor(label: label)
  }

  /// Runs `body` with the connection.
  func run<T: Sendable>(_ body: @Sendable (Connection) throws -> T) throws -> T {
    try body(connection)
  }
}
