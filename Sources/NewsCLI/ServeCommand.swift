import Dispatch
import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsServer

#if canImport(Glibc)
  import Glibc
#endif

/// `news serve`: the store as an HTTP service — the Miniflux API v1, the Google Reader API and a web reader — for
/// the readers people already use (docs/SERVE.md). The composition root only: the front door is ``NewsServer``,
/// the transport the injected ``ServerStack`` (libmicrohttpd in `news-online`), the refreshes the repository's.
struct ServeCommand: NewsCommand {
  static let name = "serve"
  static let summary = "Serve the cache over HTTP: Miniflux and Google Reader APIs, a web reader (docs/SERVE.md)."
  static let configurationUse = ConfigurationUse.creatable
  static let details = """
    Listens on 127.0.0.1:8080 by default (--listen HOST:PORT; [::1]:PORT for IPv6; port 0 picks a free one) and
    prints where. Serves from the store at all times; every source (the configuration's and the store's
    subscriptions) is refreshed in the background every --refresh (15m by default; 0 or off: never; never on a
    read-only store, where clients' marks and refreshes are refused with 503), as news fetch --all does. Other news commands
    keep working on the same database meanwhile. One line per request on standard error (--json: JSON lines),
    without queries or secrets. SIGINT or SIGTERM stop it: requests in flight are answered, the refresh is
    cancelled, the store closed, exit 0.
    Without credentials every request is allowed, so only a loopback address may be listened on; another address
    needs "serve": {"user", "passwordHash"} in the configuration: news serve --set-password USER reads a password
    from standard input (not echoed), stores its argon2id hash and a new API token, and exits.
    Exit status: 0 stopped by a signal or password set, 64 usage error, 69 the address cannot be listened on,
    74 storage error, 78 no credentials for a non-loopback address, or no HTTP server in this program.
    """

  static let storeOptions = StoreOptions<Option>(
    json: "one JSON object a line: {listening, port, credentials}, then the request log")

  enum Option: CommandOption {
    case listen, refresh, setPassword
    var spec: OptionSpec {
      switch self {
      case .listen:
        OptionSpec(
          name: "listen", valueName: "HOST:PORT",
          help: "Where to listen (default 127.0.0.1:8080; [::1]:8080; 0.0.0.0:8080 needs credentials).",
          type: .listenAddress)
      case .refresh:
        OptionSpec(
          name: "refresh", valueName: "INTERVAL",
          help: "Refresh every source this often: 15m (default), 90s, 2h, or 0/off for never.", type: .interval)
      case .setPassword:
        OptionSpec(
          name: "set-password", valueName: "USER",
          help: "Store USER and a password read from standard input (argon2id hash) in the configuration, and exit.")
      }
    }
  }

  var context: CommandContext
  var arguments: ParsedArguments<Option>

  func run() async throws -> ExitCode {
    if let user = arguments.value(.setPassword) { return try setPassword(user) }
    let (host, port) = arguments.address(.listen) ?? ("127.0.0.1", 8080)
    // Seconds between refreshes (15 minutes by default), `nil` for never.
    let interval: Double? = arguments.interval(.refresh) ?? 15 * 60
    let serve = context.configuration.serve
    var credentials: ServerCredentials?
    if let user = serve.user, let hash = serve.passwordHash {
      credentials = ServerCredentials(user: user, passwordHash: hash, apiToken: serve.apiToken)
    }
    if credentials == nil, !HostCheck.isLoopback(host) {
      throw CommandFailure(
        .config,
        "listening on \(host) needs credentials: without them every request is allowed, so only loopback is served",
        hint: "set them: news serve --set-password USER\(configHint) (reads the password from standard input)")
    }
    var command = self
    if !HostCheck.isLoopback(host) {
      // Beyond loopback the reads the server starts itself (refreshes, whole texts, images, subscriptions) follow no
      // redirect to another host on its own machine or network (``NewsServer/redirectRule``).
      command.context.network = context.network.refusingRedirects(NewsServer.redirectRule)
    }
    return try await command.serve(host: host, port: port, interval: interval, credentials: credentials)
  }

  /// Serves on `host`:`port` until a signal, refreshing every `interval` seconds (`nil`: never).
  private func serve(host: String, port: Int, interval: Double?, credentials: ServerCredentials?) async throws
    -> ExitCode
  {
    let serve = context.configuration.serve
    let configured = try context.newsSources()
    let repository = try context.makeRepository(
      arguments.common, entities: CommandContext.entities(of: configured), retrying: true)
    // Subscriptions made through the APIs go into the configuration file, the CLI's list, named after the feed's own
    // title (read while the client waits, as Miniflux reads it). One list, so that the file is read once per change.
    let file = context.subscriptionFile
    let sources = sourcesProvider(repository: repository, file: file, configured: configured)
    let timeout = context.configuration.timeoutSeconds
    // Every refresh — the periodic one and the Miniflux API's — goes through the library, as news fetch --all's does.
    let library = ServedLibrary(
      repository: repository, sources: sources, subscriptions: file,
      subscriber: context.network.reachesHTTP
        ? FeedSubscriber(transport: context.network.httpTransport(timeout, SyncCommand.retry(timeout), [])) : nil,
      refreshOptions: context.refreshOptions(arguments.common, timeout: nil),
      refreshed: refreshLine(json: arguments.json))
    let json = arguments.json
    let server = NewsServer(
      library: library,
      settings: NewsServer.Settings(
        listenHost: host, credentials: credentials, names: serve.names, log: requestLog(json: json),
        version: NewsCommandLine.version, commit: NewsCommandLine.commit))
    let running: any RunningServer
    do {
      running = try server.start(on: context.server, port: port)
    } catch {
      await repository.close()
      if error.unavailable {
        throw CommandFailure(.config, error.description, hint: "run news-online serve, or build it beside news")
      }
      throw CommandFailure(.unavailable, error.description, hint: "give another address or port with --listen")
    }
    announce(host: host, port: running.port, credentials: credentials, json: json)
    // Nothing a refresh reads could be saved: none runs (the APIs' changes are answered 503, ``ServedFailure``).
    let readOnly = repository.isReadOnly
    if readOnly, !json {
      context.console.err(
        "news serve: read-only store (\(OutputFormat.sanitized(repository.databasePath))): served as it is; no "
          + "refresh runs, and the read and star marks and refreshes clients ask for are refused (503)\n")
    }
    let refresher = (readOnly ? nil : interval).map { seconds in
      Task { await refreshLoop(library: library, every: seconds) }
    }
    let signal = await Self.waitForSignal()
    context.console.err(json ? "" : "news serve: \(signal == SIGINT ? "SIGINT" : "SIGTERM"), stopping\n")
    refresher?.cancel()
    // A refresh waiting for a slow server ends now, not at its timeout (tester MED: 27 s after SIGINT).
    await repository.cancelRefreshes()
    await running.stop()
    await library.stopRefreshing()
    _ = await refresher?.value
    await repository.close()
    if !json { context.console.err("news serve: stopped\n") }
    return .success
  }

  private var configHint: String {
    arguments.common.configurationPath.map { " --config \(OutputFormat.sanitized($0))" } ?? ""
  }

  /// Prints where the server listens (standard output, so that a script can read the port) and how it is guarded.
  private func announce(host: String, port: Int, credentials: ServerCredentials?, json: Bool) {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    let url = "http://\(shownHost):\(port)/"
    if json {
      let object: [String: Any] = [
        "listening": url, "port": port, "credentials": credentials != nil, "user": credentials?.user ?? NSNull(),
      ]
      let data =
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
      context.console.out(String(decoding: data, as: UTF8.self) + "\n")
    } else {
      let guarded =
        credentials.map { "credentials required (user \(OutputFormat.sanitized($0.user)))" }
        ?? "no credentials: loopback only, every request allowed"
      context.console.out("news serve: listening on \(url) (\(guarded))\n")
    }
  }

  private func requestLog(json: Bool) -> RequestLog {
    let console = context.console
    return RequestLog(json: json) { line in console.err(line) }
  }

  /// Every source served, read again on each call (a `news add` in another shell shows up): the configuration
  /// file's (``SubscriptionFile/sources()``: read and parsed again only when the file changed; while it cannot be
  /// read, being edited by hand, the list last read) — then the store's subscriptions of other names, sorted by name.
  private func sourcesProvider(repository: NewsRepository, file: SubscriptionFile, configured: [NewsSource])
    -> @Sendable () async throws
    -> [NewsSource]
  {
    let lastRead = LastReadSources(configured)
    return {
      var listed = lastRead.sources
      if let read = try? await file.sources() {
        lastRead.sources = read
        listed = read
      }
      // Each name lowered once, not at each comparison.
      return try await repository.everySubscription(besides: listed).map { ($0.name.lowercased(), $0) }
        .sorted { $0.0 < $1.0 }.map(\.1)
    }
  }

  /// Refreshes every source at once, then every `seconds`, until cancelled, through the library
  /// (``ServedLibrary/refresh(only:)``: a refresh an API client started meanwhile is joined, not run twice; each
  /// refresh's line is ``refreshLine(json:)``'s).
  private func refreshLoop(library: ServedLibrary, every seconds: Double) async {
    while !Task.isCancelled {
      _ = try? await library.refresh()
      try? await Task.sleep(for: .seconds(seconds))
    }
  }

  /// One line on standard error for each refresh, whoever asked for it (the periodic one, a Miniflux client's
  /// `PUT /v1/feeds/refresh`): `news serve: refreshed N sources, M failed`, or with `--json` `{"failed","refreshed"}`.
  private func refreshLine(json: Bool) -> @Sendable (RefreshReport) -> Void {
    let console = context.console
    return { report in
      let failed = report.sources.filter { $0.failure != nil }.count
      if json {
        let object: [String: Any] = ["refreshed": report.sources.count, "failed": failed]
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
          console.err(String(decoding: data, as: UTF8.self) + "\n")
        }
      } else {
        console.err("news serve: refreshed \(report.sources.count) sources, \(failed) failed\n")
      }
    }
  }

  // MARK: - --set-password

  /// Reads a password from standard input (echo off on a terminal), stores `user`, its argon2id hash and a new API
  /// token under `"serve"` in the configuration file (the other keys and bytes kept), and says where.
  private func setPassword(_ user: String) throws -> ExitCode {
    guard !user.isEmpty, !user.contains(":"), !user.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
      throw CommandFailure(.usage, "--set-password needs a user name without ':' or control characters")
    }
    if isatty(0) == 1 { context.console.err("Password for \(OutputFormat.sanitized(user)): ") }
    guard let password = Self.readPassword(), !password.isEmpty else {
      throw CommandFailure(
        .usage, "no password on standard input", hint: "type it, or pipe it: … | news serve --set-password \(user)")
    }
    // NIST SP 800-63B §5.1.1.1: a memorized secret chosen by its user is at least 8 characters.
    guard password.count >= 8 else {
      throw CommandFailure(
        .usage, "the password is \(password.count) characters: news serve needs at least 8",
        hint: "a passphrase of a few words is easy to type in a feed reader's settings")
    }
    guard let hash = ServerCredentials.hash(password: password) else {
      throw CommandFailure(.config, "cannot hash the password (libsodium could not start or had no memory)")
    }
    let file = context.configuration.file ?? Configuration.userConfigurationPath(environment: context.environment)
    var edit = try JSONFileEdit(path: file)
    var object: [(String, String)] = [
      ("user", JSONFileEdit.literal(user)), ("passwordHash", JSONFileEdit.literal(hash)),
      ("apiToken", JSONFileEdit.literal(ServerCredentials.randomToken())),
    ]
    let names = context.configuration.serve.names
    if !names.isEmpty {
      object.append(("names", "[" + names.map(JSONFileEdit.literal).joined(separator: ", ") + "]"))
    }
    try edit.setTopLevel(
      "serve", json: "{" + object.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    try edit.save { path in _ = try Configuration.read(path: path) }
    if let previous = context.configuration.serve.user, previous != user {
      // One user per server: say whose sign-in stopped working.
      context.console.printNote(
        "user \(OutputFormat.sanitized(previous)) can no longer sign in: news serve has one user, now "
          + OutputFormat.sanitized(user))
    }
    context.console.printNote(
      "\(file): \"serve\" now has user \(OutputFormat.sanitized(user)), the password's argon2id hash and a new "
        + "apiToken (Miniflux X-Auth-Token)")
    return .success
  }

  /// A line from standard input with echo off when it is a terminal, without its newline; `nil` at end of input.
  static func readPassword() -> String? {
    var saved = termios()
    let terminal = isatty(0) == 1 && tcgetattr(0, &saved) == 0
    if terminal {
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      tcsetattr(0, TCSANOW, &quiet)
    }
    defer {
      if terminal {
        tcsetattr(0, TCSANOW, &saved)
        FileHandle.standardError.write(Data("\n".utf8))
      }
    }
    return readLine(strippingNewline: true)
  }

  /// Waits for SIGINT or SIGTERM (their default action, ending the process, is turned off for this) and returns
  /// which came.
  static func waitForSignal() async -> Int32 {
    await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
      let queue = DispatchQueue(label: "news serve signals")
      let once = SignalOnce(continuation)
      for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler { once.fire(number) }
        source.resume()
        once.keep(source)
      }
    }
  }
}

/// The configuration's sources as last read.
private final class LastReadSources: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [NewsSource]

  init(_ sources: [NewsSource]) { list = sources }

  var sources: [NewsSource] {
    get { lock.withLock { list } }
    set { lock.withLock { list = newValue } }
  }
}

/// Resumes the continuation of ``ServeCommand/waitForSignal()`` once, and keeps its signal sources alive.
private final class SignalOnce: @unchecked Sendable {
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Int32, Never>?
  private var sources: [any DispatchSourceSignal] = []

  init(_ continuation: CheckedContinuation<Int32, Never>) { self.continuation = continuation }

  func keep(_ source: any DispatchSourceSignal) { lock.withLock { sources.append(source) } }

  func fire(_ number: Int32) {
    let waiting = lock.withLock {
      defer { continuation = nil }
      return continuation
    }
    waiting?.resume(returning: number)
  }
}
