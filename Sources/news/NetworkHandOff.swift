import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a command that uses the network in `news-online`, the same command line with the libcurl network linked
/// in, built beside this executable: `news-online` replaces this process (`execv`), so it keeps its id, standard
/// streams, environment and exit status.
enum NetworkHandOff {
  /// The name of the executable that runs the commands that use the network.
  static let program = "news-online"

  /// `news-online` in the folder of this executable (symbolic links resolved, `/proc/self/exe`), if it is there
  /// and executable.
  static func onlineExecutable() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let executable = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = executable.lastIndex(of: "/") else { return nil }
    let path = executable[..<slash] + "/" + program
    return access(path, X_OK) == 0 ? path : nil
  }

  /// Replaces this process with `news-online ARGUMENTS…`; returns only when that fails, with exit status 78
  /// (`EX_CONFIG`: the installation is broken, a retry will not help) and a message naming the path.
  static func run(_ path: String, _ arguments: [String]) -> Int32 {
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    execv(path, argv)
    let cause = String(cString: strerror(errno))
    FileHandle.standardError.write(
      Data("news: cannot run \(path): \(cause)\nhint: build it again (swift build --product \(program))\n".utf8))
    return 78
  }
}
