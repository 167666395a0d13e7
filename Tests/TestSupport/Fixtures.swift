import Foundation

/// Where test inputs live.
public enum Fixtures {
  /// The package root (the folder holding Package.swift).
  public static let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/TestSupport/Fixtures.swift
    return url
  }()

  /// The repository's own fixtures, written by us: `Tests/Fixtures/`.
  public static func own(_ name: String) -> URL {
    packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name)
  }

  /// The bundled configuration folder, `Config/`.
  public static let configDirectory = packageRoot.appendingPathComponent("Config")

  /// `../shared/fixtures/real/`: real API responses captured by others. Present in CI and on developer machines,
  /// absent in a user's fresh clone: tests over it are enabled only when it is there,
  /// `@Test(.enabled(if: Fixtures.hasSharedReal, "needs ../shared/fixtures/real"))`, so that the runner counts them
  /// as skipped elsewhere.
  ///
  /// `OFFLINENEWS_SHARED=DIR` in the environment reads `DIR/fixtures/real` instead: CI sets it to a folder that does
  /// not exist to run the suite as a fresh clone with no `../shared` beside it (`.ci/run`).
  public static let sharedRealDirectory: URL = {
    if let shared = ProcessInfo.processInfo.environment["OFFLINENEWS_SHARED"], !shared.isEmpty {
      return URL(fileURLWithPath: shared).appendingPathComponent("fixtures/real")
    }
    return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/real")
  }()

  /// A file of `../shared/fixtures/real/` that is missing although the folder is there.
  public struct MissingFixture: Error, CustomStringConvertible {
    public var path: String
    public var description: String { "\(path) is missing from ../shared/fixtures/real" }
  }

  /// The URL of a file in `../shared/fixtures/real/`, for a test enabled by ``hasSharedReal``.
  ///
  /// - Throws: ``MissingFixture`` when the file is not there.
  public static func sharedReal(_ name: String) throws -> URL {
    let url = sharedRealDirectory.appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: url.path) else { throw MissingFixture(path: url.path) }
    return url
  }

  /// Whether `../shared/fixtures/real/` exists; use with `.enabled(if:)`.
  public static var hasSharedReal: Bool {
    FileManager.default.fileExists(atPath: sharedRealDirectory.path)
  }
}

/// A fresh temporary directory, removed when the value is deinitialized.
public final class TemporaryDirectory: Sendable {
  public let url: URL

  public init(_ label: String = "offlinenews") {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// A path inside the directory.
  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  deinit { try? FileManager.default.removeItem(at: url) }
}
