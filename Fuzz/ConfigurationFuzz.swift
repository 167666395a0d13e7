// libFuzzer target: the configuration reader, `Configuration.read(path:)`, on a temporary file holding the input.
//
// Built by scripts/fuzz.sh against the NewsCLI module compiled with `-enable-testing`. Properties checked, each a
// crash when broken:
// - reading never traps, whatever the bytes;
// - a file that is refused gives a configuration error (exit status 78) whose message names the file;
// - a file that is accepted has only sources with an http(s) or file URL, a default source that exists, a timeout
//   > 0, and a database path that is absolute.
import Foundation

@testable import NewsCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The file each input is written to: in /dev/shm when there is one (no disk), written without fsync (Foundation's
/// `createFile` syncs, which made the first runs a hundred times slower).
private let path: String = {
  let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
  return folder + "/news-fuzz-config-\(getpid()).json"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0, size == 0 || write(fd, data, size) == size else { fatalError("cannot write \(path)") }
  close(fd)
  do {
    let configuration = try Configuration.read(path: path)
    check(configuration)
  } catch {
    guard error.code == .config, error.message.contains(path) else {
      fatalError("refused with \(error.code) and a message that does not name the file: \(error.message)")
    }
  }
  return 0
}

private func check(_ configuration: Configuration) {
  for (name, source) in configuration.sources {
    let scheme = source.url.scheme?.lowercased() ?? ""
    guard ["http", "https", "file"].contains(scheme) else { fatalError("source \(name) has URL \(source.url)") }
  }
  if let name = configuration.defaultSource, configuration.sources[name] == nil {
    fatalError("defaultSource \(name) is not a source")
  }
  guard configuration.timeoutSeconds > 0 else { fatalError("timeoutSeconds \(configuration.timeoutSeconds)") }
  if let database = configuration.databasePath, !database.hasPrefix("/") {
    fatalError("database path \(database) is not absolute")
  }
}
