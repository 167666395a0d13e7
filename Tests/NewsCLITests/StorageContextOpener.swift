import OfflineNews
import OfflineNewsStorage

enum StorageContextOpener {
  /// Sets `PRAGMA user_version` through a storage context that is closed (and checkpointed) on return.
  static func setUserVersion(_ version: Int, at path: String) async throws {
    let storage = try StorageContext(path: path)
    try await storage.write { db in try db.execute(sql: "PRAGMA user_version = \(version)") }
  }
}
