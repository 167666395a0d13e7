import Foundation
import OfflineNews
import OfflineNewsModel

/// `news-online`, the command line with the network linked in, as the commands that need HTTP name it when the
/// running program has none (``NetworkStack/filesOnly``: `news` with no `news-online` beside it, as after
/// `swift run news`, which builds `news` alone).
///
/// For example, in a checkout where only `news` is built:
/// ```
/// news: news fetch needs the network for https://newsapi.org/v2/top-headlines, and this news has none:
///       news-online is not in /src/news/.build/x86_64-unknown-linux-gnu/debug
/// hint: build it: swift build --package-path /src/news --product news-online
/// ```
/// The exit status is 78 (`EX_CONFIG`): the installation is incomplete, and trying again will not help.
enum NetworkProgram {
  /// The executable that runs the commands that use the network, beside `news`.
  static let name = "news-online"

  /// The folder of the running executable (links resolved): where `news` looks for `news-online`.
  static var executableFolder: String {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
  }

  /// The exact command that puts `news-online` in `folder`: in a SwiftPM build folder (`PACKAGE/.build/…/debug` or
  /// `…/release`), the `swift build` of that package and configuration; elsewhere (an installed `news`), a release
  /// build copied into it, run from the package folder.
  static func installCommand(folder: String) -> String {
    if let build = folder.range(of: "/.build/") {
      let package = String(folder[..<build.lowerBound])
      let release = folder.hasSuffix("/release") ? " -c release" : ""
      return "swift build\(release) --package-path \(shellQuoted(package)) --product \(name)"
    }
    return "swift build -c release --product \(name) && cp .build/release/\(name) \(shellQuoted(folder))/"
  }

  /// The hint under every message about the missing program.
  static func hint(folder: String) -> String {
    let how =
      folder.contains("/.build/")
      ? "build it: \(installCommand(folder: folder))"
      : "install it beside news, from the package folder: \(installCommand(folder: folder))"
    return how + " (news then hands fetch, sync and add to it); file sources need neither"
  }

  /// The failure of `news COMMAND` that needs HTTP for `url` in a program without the network: 78 (`EX_CONFIG`).
  static func missing(command: String, url: URL, folder: String = executableFolder) -> CommandFailure {
    CommandFailure(
      .config,
      "news \(command) needs the network for \(NewsQuery.shown(url)), and this news has none: "
        + "\(name) is not in \(folder)",
      hint: hint(folder: folder))
  }

  /// `text` as one shell word: as it is when it has only safe characters, else in single quotes.
  static func shellQuoted(_ text: String) -> String {
    let safe = CharacterSet(charactersIn: "-_./:@%+=,").union(.alphanumerics)
    if !text.isEmpty, text.unicodeScalars.allSatisfy(safe.contains) { return text }
    return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

extension CommandContext {
  /// Refuses, before anything is read or written, a command that would send HTTP requests to any of `urls` (file
  /// URLs need none) when this program has no network (``NetworkStack/reachesHTTP``).
  ///
  /// - Throws: ``CommandFailure`` 78 (``ExitCode/config``) naming the first such URL and the command that builds
  ///   `news-online` beside this program (``NetworkProgram``).
  func requireNetwork(for urls: [URL], command: String) throws(CommandFailure) {
    guard !network.reachesHTTP, let url = urls.first(where: { !$0.isFileURL }) else { return }
    throw NetworkProgram.missing(command: command, url: url)
  }
}
