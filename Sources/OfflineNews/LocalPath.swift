import Foundation

/// Paths as a person writes them — in a configuration file, an option, an argument — made absolute.
package enum LocalPath {
  /// `path` made absolute against `base` (and standardized).
  package static func absolute(_ path: String, relativeTo base: String) -> String {
    let url =
      path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: base).appendingPathComponent(path)
    return url.standardizedFileURL.path
  }

  /// `~` → `$HOME` and `~/x` → `$HOME/x` (`HOME` from `environment`, else the user's home folder); any other path,
  /// `~user/x` included, as it is. A configuration file or a script passes `~` quoted, where no shell expands it.
  package static func expandingTilde(_ path: String, environment: [String: String]) -> String {
    guard path == "~" || path.hasPrefix("~/") else { return path }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return (home.hasSuffix("/") && path.hasPrefix("~/") ? String(home.dropLast()) : home) + path.dropFirst()
  }

  /// A path as a user wrote it made absolute: `~` or `~/…` expanded with `$HOME` (``expandingTilde(_:environment:)``),
  /// then resolved against `base` (``absolute(_:relativeTo:)``).
  package static func resolved(_ path: String, relativeTo base: String, environment: [String: String]) -> String {
    absolute(expandingTilde(path, environment: environment), relativeTo: base)
  }
}
