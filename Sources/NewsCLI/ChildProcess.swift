#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program `news` runs as a child process: the opener of `news open`, and the `news fetch` of a `news read` reload
/// (``ReaderReload``). One way to start one (`posix_spawn`, standard input from `/dev/null`, the environment given,
/// every signal at its default action) and one way to read how it ended.
enum ChildProcess {
  /// Why a child could not be started: the error number `posix_spawn` returned (an `errno` value).
  struct StartFailure: Error, Equatable {
    var code: Int32
  }

  /// Starts `words[0]` with `words` as its arguments (`argv`, the program's own name first) and `environment` as its
  /// whole environment, its standard input `/dev/null`. It is not waited for: ``exitStatus(of:)`` does that.
  ///
  /// - Parameters:
  ///   - searchingPath: a program named without a `/` is looked for on `$PATH` (`posix_spawnp`, as a shell does);
  ///     `false`: `words[0]` is the program's path (`posix_spawn`).
  ///   - output: the descriptor the child's standard output is (`dup2`); `nil`: this process's.
  ///   - errors: the descriptor the child's standard error is; `nil`: this process's.
  /// - Returns: the child's process id.
  /// - Throws: ``StartFailure`` when it cannot be started (no such program, not executable, no memory).
  static func start(
    _ words: [String], environment: [String: String], searchingPath: Bool = false, output: Int32? = nil,
    errors: Int32? = nil
  ) throws(StartFailure) -> pid_t {
    guard let program = words.first else { throw StartFailure(code: EINVAL) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if let output { posix_spawn_file_actions_adddup2(&actions, output, 1) }
    if let errors { posix_spawn_file_actions_adddup2(&actions, errors, 2) }
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    // Every signal at its default action and none blocked in the child: a child inherits the signals its parent
    // ignores and blocks (POSIX `exec`), and `news read` ends its reload with SIGTERM, which a `news` started with
    // SIGTERM ignored (`nohup`, some test runners) would otherwise pass on to a child that never stops.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    var none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let status =
      searchingPath
      ? posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
      : posix_spawn(&pid, program, &actions, &attributes, argv, envp)
    guard status == 0 else { throw StartFailure(code: status) }
    return pid
  }

  /// Waits for the child `pid` to end (through interruptions by signals): its exit status, or 128 + the signal that
  /// ended it, as a shell reports it.
  static func exitStatus(of pid: pid_t) -> Int32 {
    var code: Int32 = 0
    while waitpid(pid, &code, 0) < 0, errno == EINTR {}
    // The wait status: exited when its low 7 bits are 0 (WIFEXITED), with the status in the next byte; else the
    // signal that ended it is those bits.
    let signal = code & 0x7F
    return signal == 0 ? (code >> 8) & 0xFF : 128 + signal
  }
}
