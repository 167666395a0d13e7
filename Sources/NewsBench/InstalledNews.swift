import Foundation

/// The `news` the benchmarks run: a copy of the one built beside `news-bench`, made as `scripts/install.sh` installs
/// it (`cp`, then used from its new place), with `news-online` copied beside it so that `news` finds it.
///
/// Why a copy: users run an installed binary, and on this machine's kernel (Linux 6.18) a 95 MB executable as the
/// linker wrote it costs about 0.7 ms more per spawn than a copy of it (page-cache faults: the copy's pages are
/// mapped in large folios; a `cp` copy, not one by `FileManager`). Measured A/B with 200 interleaved spawns of `news --help`: 5.15 ms of CPU for
/// `.build/release/news`, 4.39 ms for a copy in the same folder.
enum InstalledNews {
  /// Copies `news` (and `news-online`, when built) from beside `selfPath` into `folder/bin` when the copies there are
  /// not of this build (missing, or another size or an older time than the built files: a `--work` folder kept from
  /// an earlier build ran that build's `news`), and returns the copied `news`.
  ///
  /// - Throws: ``BenchError`` when there is no `news` beside news-bench, or the copy fails.
  static func path(besides selfPath: String, folder: String) throws -> String {
    let built = URL(fileURLWithPath: selfPath).deletingLastPathComponent()
    let bin = folder + "/bin"
    let installed = bin + "/news"
    func isCopy(_ program: String) -> Bool {
      let source = built.appendingPathComponent(program).path
      guard access(source, X_OK) == 0 else { return true }
      let manager = FileManager.default
      guard let original = try? manager.attributesOfItem(atPath: source),
        let copy = try? manager.attributesOfItem(atPath: bin + "/" + program),
        let originalTime = original[.modificationDate] as? Date, let copyTime = copy[.modificationDate] as? Date
      else { return false }
      return original[.size] as? Int == copy[.size] as? Int && copyTime >= originalTime
    }
    if access(installed, X_OK) == 0, isCopy("news"), isCopy("news-online") { return installed }
    guard access(built.appendingPathComponent("news").path, X_OK) == 0 else {
      throw BenchError("no `news` beside news-bench (\(built.path)/news): build both, swift build -c release")
    }
    do {
      try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
      for program in ["news", "news-online"] {
        let source = built.appendingPathComponent(program).path
        guard access(source, X_OK) == 0 else { continue }
        try? FileManager.default.removeItem(atPath: bin + "/" + program)
        // With `cp`, as scripts/install.sh copies (a copy by FileManager, written in small chunks, spawns no
        // faster than the linker's file).
        guard commandOutput([which("cp") ?? "/usr/bin/cp", source, bin + "/" + program], outputFolder: folder) != nil
        else {
          throw BenchError("cannot copy \(source) into \(bin) with cp")
        }
      }
    } catch let error as BenchError {
      throw error
    } catch {
      throw BenchError("cannot copy news into \(bin): \(error.localizedDescription)")
    }
    return installed
  }
}
