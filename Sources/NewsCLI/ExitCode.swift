import OfflineNews
import OfflineNewsNetwork
import OfflineNewsStorage
import OfflineNewsSync

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
  /// `fetch --all`: some sources failed with nothing cached to serve, while the others refreshed or served their
  /// cache; a later run may succeed (`EX_TEMPFAIL`). `--json` says which, per source.
  case someUnavailable = 75
  /// The configuration file is missing or wrong, or the installation is: a command that needs the network run by a
  /// `news` without `news-online` beside it (`EX_CONFIG`).
  case config = 78
  /// Ended by Ctrl-C (SIGINT) after putting things in order, 128 + 2 as a shell reports it: `news read` after giving
  /// the terminal back; `news fetch --all` (and `--folder`, `--json-lines`) after reporting the sources that
  /// finished.
  case interrupted = 130
  /// `news read` ended by SIGTERM, SIGHUP or SIGQUIT, after giving the terminal back (128 + SIGTERM's 15).
  case terminated = 143
}

extension ExitCode {
  /// The exit status of a sync that stopped with a failure of `kind`: 74 storage; 65 a page that is not one or
  /// cannot be imported with the mapping; 69 the network or the server failed.
  init(_ kind: SyncError.Kind) {
    switch kind {
    case .storage: self = .storage
    case .invalidPage, .importFailed: self = .badInput
    case .network, .server: self = .unavailable
    }
  }

}

/// An error that ends a command with a message on stderr and an exit status.
struct CommandFailure: Error {
  var code: ExitCode
  var message: String
  var hint: String?
  /// The command's usage line, printed after a usage error of its command line (``CommandSpec/usageError(_:)``).
  var usage: String?

  init(_ code: ExitCode, _ message: String, hint: String? = nil) {
    self.code = code
    self.message = message
    self.hint = hint
  }

  /// The failure for an error a command met: the one place where errors become exit statuses, by their type.
  ///
  /// | error | status |
  /// |---|---|
  /// | ``CommandFailure`` | its own |
  /// | `NewsRepositoryError.networkFailedAndCacheEmpty`, `.networkFailed` | 69 `unavailable`, naming the input (a
  ///   file's path, or the URL without its API key) with a hint that fits the cause (``FailureHint``) |
  /// | `NewsRepositoryError.storage`, `StorageError` | 74 `storage`, naming the database file and the cause (a lock
  ///   held by another writer: with a hint saying so) |
  /// | `SubscriptionFileError` | 78 `config`, naming the file and the key |
  /// | `SubscriptionChangeError` | 64 a name taken or not a name, 66 no such source, 78 the file's or the kind's |
  /// | any other error (a last resort: storage calls throw `StorageError` only) | 74 `storage` |
  ///
  /// - Parameter currentDirectory: the folder relative paths were resolved against, named in hints about files.
  init(_ error: any Error, currentDirectory: String) {
    switch error {
    case let failure as CommandFailure:
      self = failure
    case let error as NewsRepositoryError:
      switch error {
      case .networkFailedAndCacheEmpty(let query, let network):
        self.init(
          network.isFilesOnlyRefusal ? .config : .unavailable,
          "\(FailureHint.name(query)): \(network); nothing is cached for it",
          hint: FailureHint.reading(query, network, currentDirectory: currentDirectory))
      case .networkFailed(let query, let network):
        let hint = FailureHint.reading(query, network, currentDirectory: currentDirectory)
        self.init(
          network.isFilesOnlyRefusal ? .config : .unavailable, "\(FailureHint.name(query)): \(network)",
          hint: [hint, "without --policy network-only, the cache is served"].compactMap { $0 }.joined(separator: "; "))
      case .storage(let storageError, _):
        self.init(storageError)
      case .invalidSearch(let error):
        self.init(.usage, error.description)
      }
    case let error as StorageError:
      self.init(error)
    case let error as SubscriptionFileError:
      self.init(error)
    case let error as SubscriptionChangeError:
      self.init(error)
    default:
      self.init(.storage, "\(error)")
    }
  }
}

extension CommandFailure {
  /// The failure for a storage error: 74 `storage`, its description (the database file and the cause), and for a
  /// lock held past the busy timeout a hint: the store has one writer at a time, so the holder is nearly always
  /// another `news` command that writes (an import, a fetch, a sync) still running.
  init(_ error: StorageError) {
    self.init(
      .storage, error.description,
      hint: error.kind == .busy
        ? "another command is writing to this store (a 'news import', 'fetch' or 'sync' still running?): "
          + "try again when it has finished; reading commands work meanwhile" : nil)
  }
}

extension CommandFailure {
  /// The failure for a configuration file that cannot be read, is not valid or cannot be written: 78 `config`, its
  /// message (the file, the key or position) and hint.
  init(_ error: SubscriptionFileError) {
    self.init(.config, error.message, hint: error.hint)
  }

  /// The failure for a refused change of a subscription list: 64 a name taken or not a name or a URL no feed can be
  /// read from, 66 no such source,
  /// 78 the file's failure or a kind the list does not keep, 74 the store's.
  init(_ error: SubscriptionChangeError) {
    switch error {
    case .file(let error): self.init(error)
    case .storage(let error): self.init(error)
    case .nameTaken: self.init(.usage, error.description, hint: "choose another --name, or news remove it first")
    case .invalidName, .unsupportedURL: self.init(.usage, error.description)
    case .notSubscribed: self.init(.noInput, error.description)
    case .alreadySubscribed, .unsupportedKind: self.init(.config, error.description)
    case .invalidList: self.init(.badInput, error.description)
    }
  }
}

extension NewsNetworkError {
  /// Whether this is ``NetworkStack/filesOnly`` refusing an http(s) request: the program has no network, which no
  /// retry cures (``NetworkProgram``).
  var isFilesOnlyRefusal: Bool {
    if case .transport(_, let detail) = self { return detail == NetworkStack.filesOnlyDetail }
    return false
  }
}
