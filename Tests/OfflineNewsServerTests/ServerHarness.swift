import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsMicroHTTPD
import OfflineNewsNetwork
import OfflineNewsServer
import OfflineNewsStorage
import TestSupport

/// The whole `news serve` in process, for the tests of every part of it (front door, APIs, web reader): the front
/// door (``NewsServer``) over libmicrohttpd on a free loopback port.
///
/// For example:
/// ```swift
/// let library = try TestLibrary()
/// let server = try startServer(library: library.served)
/// defer { Task { await server.stop() } }
/// let response = try await TestClient(port: server.port).request("GET", "/v1/me")
/// ```
struct TestServer: Sendable {
  /// The port it listens on (127.0.0.1).
  var port: Int
  /// Stops it (in-flight requests answered).
  var stop: @Sendable () async -> Void
  /// `http://127.0.0.1:PORT`.
  var base: String { "http://127.0.0.1:\(port)" }
}

/// Starts the front door over `library` on 127.0.0.1, a free port: with `credentials` (make them with
/// ``testCredentials(user:password:apiToken:)``) or none (every request allowed), failed logins slowed by
/// `throttle` (20 ms at first, not 0.5 s), each request logged to `log`.
func startServer(
  library: ServedLibrary, credentials: ServerCredentials? = nil, names: [String] = [], log: RequestLog = .none,
  throttle: LoginThrottle = LoginThrottle(base: .milliseconds(20), maximum: .milliseconds(200)),
  limits: ServerLimits = ServerLimits()
) throws -> TestServer {
  let server = NewsServer(
    library: library,
    settings: NewsServer.Settings(
      listenHost: "127.0.0.1", credentials: credentials, names: names, log: log, throttle: throttle))
  let running = try MicroHTTPDServer.start(host: "127.0.0.1", port: 0, limits: limits, handler: server.handler)
  return TestServer(port: running.port, stop: { await running.stop() })
}

/// Credentials with an argon2id hash of `password` (about 0.1 s to make).
func testCredentials(user: String = "alice", password: String = "correct horse", apiToken: String? = "api-token-1")
  throws -> ServerCredentials
{
  guard let hash = ServerCredentials.hash(password: password) else { throw POSIXError(.ENOMEM) }
  return ServerCredentials(user: user, passwordHash: hash, apiToken: apiToken)
}

/// A store in a temporary folder, its repository (no network: file sources only) and the ``ServedLibrary`` over it,
/// with `sources` served.
final class TestLibrary: Sendable {
  let directory = TemporaryDirectory("serve")
  let storage: StorageContext
  let repository: NewsRepository
  let served: ServedLibrary

  init(sources: [NewsSource] = []) throws {
    storage = try StorageContext(path: directory.path("news.sqlite"))
    repository = NewsRepository(storage: storage, network: FileNewsNetwork())
    served = ServedLibrary(repository: repository, sources: { sources })
  }
}

/// Collects the request log's lines.
final class LogLines: Sendable {
  private let lines = LockedLines()
  var log: RequestLog { RequestLog(json: false) { [lines] in lines.append($0) } }
  var jsonLog: RequestLog { RequestLog(json: true) { [lines] in lines.append($0) } }
  var all: [String] { lines.all }
}

private final class LockedLines: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []
  func append(_ line: String) { lock.withLock { lines.append(line) } }
  var all: [String] { lock.withLock { lines } }
}
