import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Ending a test's own tmux server (`tmux -L SOCKET`) for good, synchronously (from a `defer` or a `deinit`).
///
/// `kill-server` alone is not enough where the test process was started with SIGHUP ignored (a job run in the
/// background, CI): the server and its panes inherit that, the pane's program never gets its hang-up, and the server
/// waits for it forever — 87 servers were found left running on a developer's machine. So the server's and the
/// panes' process ids are asked first, and whatever still runs after `kill-server` is sent SIGKILL.
public enum TmuxServer {
  /// Ends the server of `socket` run by the `tmux` at `path`, and the programs in its panes.
  public static func end(tmux path: String, socket: String) {
    let pids = run(path, ["-L", socket, "list-panes", "-a", "-F", "#{pid} #{pane_pid}"])
      .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t(String($0)) }.filter { $0 > 1 }
    _ = run(path, ["-L", socket, "kill-server"])
    for pid in Set(pids) { kill(pid, SIGKILL) }
  }

  /// Runs `path` with `arguments` and returns its standard output (`""` when it cannot be started).
  private static func run(_ path: String, _ arguments: [String]) -> String {
    (try? ProgramRun.runBlocking(path, arguments))?.out ?? ""
  }
}
