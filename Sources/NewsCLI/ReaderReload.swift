import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A reload of `news read` (`r`, `R`): `news fetch … --json-lines` run as a child process, so that the reader itself
/// links no network and starts as fast as `news list` (issue 31; docs/PERFORMANCE.md, "news read"). The child is
/// this program again (`/proc/self/exe`): `news` hands `fetch` to `news-online` beside it as it does from a shell,
/// or, without it, refreshes file sources and refuses an http(s) one with the command that builds `news-online`; so
/// a reload is exactly `news fetch --all` (or `--folder`, `--source`), with its options, configuration and store.
///
/// Its standard input is `/dev/null` and its output goes to pipes read on a thread of the reload's own: each line
/// (a source done, ``FetchCommand/SourceLine``) is handed to `progress`, and `finished` is called once the child has
/// exited, with every line and, when it failed before refreshing (a usage or configuration error), its message.
/// Nothing here waits on the event loop's thread: keys are answered while the child runs.
final class ReaderReload: Sendable {
  /// What a reload refreshes, as `news fetch` selects it.
  enum Selection: Equatable, Sendable {
    /// Every configured source (`--all`).
    case all
    /// The sources of a folder and of the folders inside it (`--folder NAME`), as the configuration writes it.
    case folder(String)
    /// One configured source (`--source NAME`), by its name.
    case source(String)
    /// Nothing: a list of no configured source (a publisher opened with `--source`).
    case none

    /// The words after `fetch`: the selection and `--json-lines` (none for ``none``, which is not run).
    var arguments: [String] {
      switch self {
      case .none: []
      case .all: ["--all", "--json-lines"]
      case .folder(let name): ["--folder", name, "--json-lines"]
      case .source(let name): ["--source", name, "--json-lines"]
      }
    }
  }

  /// How a reload ended.
  struct Outcome: Sendable, Equatable {
    /// One line per source refreshed, in the order they finished.
    var sources: [FetchCommand.SourceLine]
    /// The child's exit status (128 + the signal when one ended it).
    var status: Int32
    /// What the child said on standard error when it refreshed nothing (a usage or configuration error, the
    /// network it does not have), first line only, without the `news: ` prefix; `nil` when it refreshed.
    var failure: String?
  }

  private let pid: pid_t

  /// Starts `program fetch SELECTION --json-lines ARGUMENTS…` with `environment`.
  ///
  /// - Parameters:
  ///   - total: how many sources the selection holds (the progress says `done of total`).
  ///   - progress: called on the reload's thread for each source done: how many so far, and that source's line.
  ///   - finished: called once on the reload's thread when the child has exited.
  /// - Throws: a message when the child cannot be started (`posix_spawn`'s error).
  init(
    program: String = ReaderReload.program, _ selection: Selection, arguments extra: [String],
    environment: [String: String], progress: @escaping @Sendable (Int, FetchCommand.SourceLine) -> Void,
    finished: @escaping @Sendable (Outcome) -> Void
  ) throws(ReloadFailure) {
    var output: [Int32] = [-1, -1]
    var errors: [Int32] = [-1, -1]
    guard pipe(&output) == 0 else { throw ReloadFailure(errno) }
    guard pipe(&errors) == 0 else {
      let code = errno
      close(output[0])
      close(output[1])
      throw ReloadFailure(code)
    }
    // The parent's ends are not inherited by the child (nor by another child started meanwhile).
    _ = fcntl(output[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(errors[0], F_SETFD, FD_CLOEXEC)
    let words = [program, "fetch"] + selection.arguments + extra
    let pid: pid_t
    do {
      pid = try ChildProcess.start(words, environment: environment, output: output[1], errors: errors[1])
    } catch {
      for end in output + errors { close(end) }
      throw ReloadFailure(error.code)
    }
    close(output[1])
    close(errors[1])
    self.pid = pid
    let (out, err) = (output[0], errors[0])
    let thread = Thread {
      let outcome = Self.collect(pid: pid, output: out, errors: err, progress: progress)
      finished(outcome)
    }
    thread.name = "news read reload"
    thread.start()
  }

  /// Ends the child (SIGTERM) if it still runs: the reader is quitting. Its transactions are SQLite's: a save it was
  /// making is rolled back whole.
  func terminate() {
    _ = kill(pid, SIGTERM)
  }

  /// The program a reload runs: this one (symbolic links resolved).
  static var program: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  }

  /// Why a reload could not start.
  struct ReloadFailure: Error, CustomStringConvertible {
    var code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { "the reload could not be started (\(String(cString: strerror(code))))" }
  }

  /// Reads the child's two pipes until both close, then waits for it.
  private static func collect(
    pid: pid_t, output: Int32, errors: Int32, progress: (Int, FetchCommand.SourceLine) -> Void
  ) -> Outcome {
    var sources: [FetchCommand.SourceLine] = []
    var pending: [UInt8] = []
    var errorText: [UInt8] = []
    var fds = [
      pollfd(fd: output, events: Int16(POLLIN), revents: 0), pollfd(fd: errors, events: Int16(POLLIN), revents: 0),
    ]
    var buffer = [UInt8](repeating: 0, count: 16_384)
    let decoder = JSONDecoder()
    while fds.contains(where: { $0.fd >= 0 }) {
      for index in fds.indices { fds[index].revents = 0 }
      if poll(&fds, nfds_t(fds.count), -1) < 0 {
        if errno == EINTR { continue }
        break
      }
      for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
        let count = read(fds[index].fd, &buffer, buffer.count)
        if count < 0, errno == EINTR || errno == EAGAIN { continue }
        if count <= 0 {
          close(fds[index].fd)
          fds[index].fd = -1
          continue
        }
        if index == 1 {
          // Kept to say why a reload failed; a few kilobytes are enough for that.
          if errorText.count < 8_192 { errorText += buffer[0..<count] }
          continue
        }
        pending += buffer[0..<count]
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = Data(pending[..<newline])
          pending.removeSubrange(...newline)
          guard let source = try? decoder.decode(FetchCommand.SourceLine.self, from: line) else { continue }
          sources.append(source)
          progress(sources.count, source)
        }
      }
    }
    let status = ChildProcess.exitStatus(of: pid)
    var failure: String?
    if sources.isEmpty, status != 0 {
      let text = String(decoding: errorText, as: UTF8.self)
      let first = text.split(separator: "\n").first.map(String.init) ?? ""
      let message = first.hasPrefix("news: ") ? String(first.dropFirst(6)) : first
      failure = message.isEmpty ? "the reload failed (exit status \(status))" : message
    }
    return Outcome(sources: sources, status: status, failure: failure)
  }
}
