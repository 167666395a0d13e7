/// The exit statuses of `news`, from BSD's `sysexits.h` where one fits.
public enum ExitCode: Int32, Sendable {
  /// Articles were served (from the network or the cache), or the command did what it was asked.
  case success = 0
  /// `import --mapping`: the file was read and saved, but some of its records failed (each reported); the rest
  /// were saved. No `sysexits.h` status means "partly done".
  case recordsFailed = 1
  /// The command line was wrong (`EX_USAGE`).
  case usage = 64
  /// An input file was unreadable or not a valid NewsAPI-format response (`EX_DATAERR`).
  case badInput = 65
  /// What the command names is not there, e.g. no cached article has the URL (`EX_NOINPUT`).
  case noInput = 66
  /// The network failed and nothing was cached for the query (`EX_UNAVAILABLE`).
  case unavailable = 69
  /// The database could not be opened, read or written (`EX_IOERR`).
  case storage = 74
  /// The configuration file is missing or wrong (`EX_CONFIG`).
  case config = 78
}

/// An error that ends a command with a message on stderr and an exit status.
struct CommandFailure: Error {
  var code: ExitCode
  var message: String
  var hint: String?

  init(_ code: ExitCode, _ message: String, hint: String? = nil) {
    self.code = code
    self.message = message
    self.hint = hint
  }
}
