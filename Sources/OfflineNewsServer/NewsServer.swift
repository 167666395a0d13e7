import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// The front door of `news serve`: the one ``ServerHandler`` every request goes through, before any API or page.
///
/// In order, for every request:
/// 1. The `Host` header is checked (``HostCheck``: DNS rebinding): 421 otherwise.
/// 2. A state-changing request (not `GET`, `HEAD` or `OPTIONS`) whose `Origin` is not this server's is refused 403
///    (a cross-site form or `fetch` from a page elsewhere; clients that are not browsers send no `Origin`).
/// 3. It is routed (a `/api/greader.php` prefix, FreshRSS's, is dropped first):
///    - `/v1/…` → ``MinifluxAPI`` once authenticated by HTTP Basic or `X-Auth-Token` (401 with
///      `WWW-Authenticate: Basic` otherwise);
///    - `/accounts/ClientLogin` (here: `Email`, `Passwd` → `SID=…\nLSID=null\nAuth=…\n`, as FreshRSS answers; 401
///      `Error=BadAuthentication`) and `/reader/api/0/token` (here: the action token `T`);
///    - `/reader/api/0/…` and `/reader/atom/…` (Google Reader's Atom streams, newsboat's) → ``ReaderAPI`` once authenticated by `Authorization: GoogleLogin auth=…`; a `POST` of a
///      state-changing call (``ReaderAPI/stateChangingCalls``) must also carry the `T` its login was given (401 with
///      `Google-Bad-Token: true` otherwise, as Google Reader and FreshRSS);
///    - `/login` (a form of its own, no external assets) and `/logout`; `/session` (the signed-in session's user and
///      CSRF token as JSON, for the web reader's scripts: same-origin only, since it sends no CORS header);
///    - anything else → ``WebReader`` with the ``WebSession`` of the `news_session` cookie (`HttpOnly;
///      SameSite=Strict`, and `Secure` unless on loopback over plain HTTP); without one, `GET` is sent to `/login`.
///      A web `POST`, `PUT` or `DELETE` needs the session's CSRF token (`X-CSRF-Token` or a `csrf` form field), 403
///      otherwise.
/// 4. `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` (the web reader's pages: `same-origin`,
///    ``WebPage``) and `X-Frame-Options: DENY` are added to every response; the request is logged (``RequestLog``:
///    no query, no secret).
///
/// Failed logins (any of the three ways) are slowed per peer address (``LoginThrottle``) and logged. Without
/// credentials (loopback only: `news serve` refuses to listen elsewhere without them) every request is allowed and
/// any login succeeds — the Host, Origin and CSRF checks still apply, as they protect the browser's user — and a
/// request a proxy forwarded (`Forwarded`, `X-Forwarded-For`, `X-Forwarded-Host`, `X-Real-IP`) is refused 403: a
/// proxy in front of a server without credentials would open it to anyone. A state change a browser marks
/// `Sec-Fetch-Site: cross-site` is refused like one from another `Origin`.
public struct NewsServer: Sendable {
  /// How the front door is set up.
  public struct Settings: Sendable {
    /// The address listened on (`127.0.0.1`, `::1`, `0.0.0.0`): the Host check's and the `Secure` cookie's.
    public var listenHost: String
    /// The account, or `nil` for none (every request allowed: loopback only).
    public var credentials: ServerCredentials?
    /// Names besides IP literals and `localhost` that `Host` may say (`news.example` behind a proxy).
    public var names: [String]
    /// Where each request is logged.
    public var log: RequestLog
    /// The slowing down of failed logins.
    public var throttle: LoginThrottle
    /// The program's version (`news --version`'s), as the Miniflux API's `GET /v1/version` reports it.
    public var version: String
    /// The commit the program was built from, `nil` when unknown.
    public var commit: String?

    /// - Parameters: see the properties of the same names.
    public init(
      listenHost: String = "127.0.0.1", credentials: ServerCredentials? = nil, names: [String] = [],
      log: RequestLog = .none, throttle: LoginThrottle = LoginThrottle(), version: String = "unknown",
      commit: String? = nil
    ) {
      self.listenHost = listenHost
      self.credentials = credentials
      self.names = names
      self.log = log
      self.throttle = throttle
      self.version = version
      self.commit = commit
    }
  }

  /// The library served.
  public let library: ServedLibrary
  /// The settings.
  public let settings: Settings
  private let hostCheck: HostCheck
  private let sessions = SessionStore()
  /// At most two password checks at once (argon2id: 64 MiB each).
  private let verifications = VerificationSlots()
  /// The action token `T` of requests without a Reader login (no credentials configured).
  private let anonymousActionToken = Sodium.randomToken(bytes: 20)
  private let secureCookies: Bool

  /// The name of the web session's cookie.
  public static let sessionCookie = "news_session"

  /// - Parameters: see the properties of the same names.
  public init(library: ServedLibrary, settings: Settings = Settings()) {
    var library = library
    // Beyond loopback, a client may not make the server read its own machine or network (``SubscribeTarget``).
    library.refusesPrivateTargets = library.refusesPrivateTargets || !HostCheck.isLoopback(settings.listenHost)
    self.library = library
    self.settings = settings
    hostCheck = HostCheck(listenHost: settings.listenHost, names: settings.names)
    secureCookies = !HostCheck.isLoopback(settings.listenHost)
  }

  /// The redirects the reads `news serve` starts itself (its refreshes, whole texts and images) do not follow when it
  /// listens beyond loopback: those to another host on its own machine or network, by the rule a subscription
  /// through an API is held to (``SubscribeTarget``). The composition root gives it to the network stack of the
  /// server's repository (`NetworkStack.refusingRedirects`); `news fetch`, run by the owner, follows every redirect.
  public static let redirectRule: RedirectTargetRule = { SubscribeTarget.redirectRefusal(from: $0, to: $1) }

  /// ``handle(_:)`` as a ``ServerHandler``.
  public var handler: ServerHandler { { request in await self.handle(request) } }

  /// Starts a server with this front door on `stack`'s transport, listening on ``Settings/listenHost`` and `port`.
  ///
  /// - Throws: ``ServerStartError`` from the transport (address in use, no server in this program).
  package func start(on stack: ServerStack, port: Int, limits: ServerLimits = ServerLimits()) throws(ServerStartError)
    -> any RunningServer
  {
    try stack.start(settings.listenHost, port, limits, handler)
  }

  /// Answers one request (see the type's documentation for the order of the checks), adds the security header
  /// fields and logs it.
  public func handle(_ request: ServerRequest) async -> ServerResponse {
    if let status = request.refusedWith {
      // Answered by the transport already (431, 413, 400, 501): logged like any other request, never routed.
      settings.log.record(
        RequestLog.Entry(
          method: RequestLog.shown(request.method), path: RequestLog.shown(request.path), status: status, ms: 0,
          peer: request.remoteAddress,
          note: request.refusalReason ?? (status == 413 ? "body too large" : "header fields too large")))
      return .text("", status: status)
    }
    let started = ContinuousClock.now
    var (response, note) = await route(request)
    for (name, value) in Self.securityHeaders where response.header(name) == nil {
      response.headers.append((name: name, value: value))
    }
    let elapsed = ContinuousClock.now - started
    let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    settings.log.record(
      RequestLog.Entry(
        method: RequestLog.shown(request.method), path: RequestLog.shown(request.path), status: response.status,
        ms: (ms * 10).rounded() / 10, peer: request.remoteAddress, note: note))
    return response
  }

  /// The header fields every response carries.
  public static let securityHeaders: [(String, String)] = [
    ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
  ]

  private typealias Answer = (response: ServerResponse, note: String?)

  private func route(_ original: ServerRequest) async -> Answer {
    guard hostCheck.allows(original.header("host")) else {
      let shown = RequestLog.shown(String((original.header("host") ?? "").prefix(100)))
      return (
        .text("misdirected request: this server does not answer for that host\n", status: 421),
        original.header("host") == nil ? "no Host" : "foreign host \"\(shown)\""
      )
    }
    if !Self.isSafe(original.method),
      !isSameOrigin(original) || original.header("sec-fetch-site")?.lowercased() == "cross-site"
    {
      return (.text("cross-origin request refused\n", status: 403), "cross-origin")
    }
    // Without credentials every request is allowed because only this machine can reach a loopback address; a proxy
    // in front (it says so in its forwarding headers) would let anyone in.
    if settings.credentials == nil, Self.proxyHeaders.contains(where: { original.header($0) != nil }) {
      return (
        .text(
          "a proxy forwarded this request, and this server has no credentials: set them (news serve --set-password)\n",
          status: 403),
        "proxied without credentials"
      )
    }
    var request = original
    if request.path.hasPrefix("/api/greader.php/") { request.path.removeFirst("/api/greader.php".count) }
    let path = request.path
    if path == "/v1" || path.hasPrefix("/v1/") { return await miniflux(request) }
    if path == "/accounts/ClientLogin" { return await clientLogin(request) }
    if path == "/reader/api/0/token" { return await readerAPI(request, tokenOnly: true) }
    if path.hasPrefix("/reader/api/0/") || path.hasPrefix(ReaderAPI.atomPrefix) {
      return await readerAPI(request, tokenOnly: false)
    }
    if path == "/login" { return await login(request) }
    if path == "/logout" { return await logout(request) }
    return await web(request, sessionOnly: path == "/session")
  }

  static func isSafe(_ method: String) -> Bool { ["GET", "HEAD", "OPTIONS"].contains(method) }

  /// The header fields a proxy adds to what it forwards (RFC 7239 `Forwarded` and the common de-facto ones).
  static let proxyHeaders = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip"]

  /// Whether the request's `Origin`, when it has one, is this server as its `Host` names it (default ports
  /// ignored).
  private func isSameOrigin(_ request: ServerRequest) -> Bool {
    guard let origin = request.header("origin")?.lowercased() else { return true }
    guard let host = request.header("host")?.lowercased(), let schemeEnd = origin.range(of: "://") else {
      return false
    }
    let scheme = origin[..<schemeEnd.lowerBound]
    var authority = String(origin[schemeEnd.upperBound...])
    if let slash = authority.firstIndex(of: "/") { authority = String(authority[..<slash]) }
    func trimmed(_ text: String) -> String {
      for port in [":80", ":443"] where text.hasSuffix(port) {
        if (port == ":80" && scheme == "http") || (port == ":443" && scheme == "https") {
          return String(text.dropLast(port.count))
        }
      }
      return text
    }
    return trimmed(authority) == trimmed(host)
  }

  // MARK: - Logins

  private enum LoginOutcome {
    case accepted
    case refused
    case throttled(Duration)
  }

  /// Checks a login of `peer` (`check` runs the password check), slowed down by the throttle after failures.
  private func attemptLogin(_ peer: String, _ check: @Sendable () -> Bool) async -> LoginOutcome {
    if let wait = await settings.throttle.wait(for: peer) { return .throttled(wait) }
    if await verifications.run(check) {
      await settings.throttle.succeeded(peer)
      return .accepted
    }
    let delay = await settings.throttle.failed(peer)
    try? await Task.sleep(for: delay)
    return .refused
  }

  private func throttledResponse(_ wait: Duration) -> ServerResponse {
    var response = ServerResponse.text("too many failed logins: try again later\n", status: 429)
    response.headers.append((name: "Retry-After", value: String(max(1, Int(wait.components.seconds) + 1))))
    return response
  }

  // MARK: - Miniflux

  private func miniflux(_ request: ServerRequest) async -> Answer {
    if let credentials = settings.credentials {
      let outcome: LoginOutcome
      if let token = request.header("x-auth-token") {
        outcome = await attemptLogin(request.remoteAddress) { credentials.verify(apiToken: token) }
      } else if let (user, password) = Self.basicCredentials(request.header("authorization")) {
        outcome = await attemptLogin(request.remoteAddress) { credentials.verify(user: user, password: password) }
      } else {
        return (Self.minifluxUnauthorized(), "no credentials")
      }
      switch outcome {
      case .accepted: break
      case .refused: return (Self.minifluxUnauthorized(), "login failed")
      case .throttled(let wait): return (throttledResponse(wait), "login throttled")
      }
    }
    let user = settings.credentials?.user ?? "news"
    let api = MinifluxAPI(library: library, user: user, version: settings.version, commit: settings.commit)
    return (await api.handle(request), nil)
  }

  private static func minifluxUnauthorized() -> ServerResponse {
    ServerResponse(
      status: 401, type: "application/json", data: Data(#"{"error_message":"Access Unauthorized"}"#.utf8),
      headers: [(name: "WWW-Authenticate", value: #"Basic realm="news serve", charset="UTF-8""#)])
  }

  /// The user and password of an `Authorization: Basic …` value (RFC 7617), or `nil`.
  static func basicCredentials(_ header: String?) -> (String, String)? {
    guard let header, header.count > 6, header.prefix(6).lowercased() == "basic " else { return nil }
    guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingWhiteSpace) else {
      return nil
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let colon = text.firstIndex(of: ":") else { return nil }
    return (String(text[..<colon]), String(text[text.index(after: colon)...]))
  }

  // MARK: - Google Reader

  private func clientLogin(_ request: ServerRequest) async -> Answer {
    let email = request.parameter("Email") ?? ""
    let password = request.parameter("Passwd") ?? ""
    var user: String? = email.isEmpty ? nil : email
    if let credentials = settings.credentials {
      switch await attemptLogin(request.remoteAddress, { credentials.verify(user: email, password: password) }) {
      case .accepted: user = credentials.user
      case .refused: return (.text("Error=BadAuthentication\n", status: 401), "login failed")
      case .throttled(let wait): return (throttledResponse(wait), "login throttled")
      }
    }
    let token = await sessions.newReaderLogin(user: user)
    var response = ServerResponse.text("SID=\(token)\nLSID=null\nAuth=\(token)\n")
    response.headers.append((name: "Cache-Control", value: "no-store"))
    return (response, nil)
  }

  private func readerAPI(_ request: ServerRequest, tokenOnly: Bool) async -> Answer {
    var login: SessionStore.ReaderLogin?
    if let token = Self.googleLoginToken(request.header("authorization")) {
      login = await sessions.readerLogin(token)
    }
    if settings.credentials != nil, login == nil {
      // An unknown Auth is a failed login too: throttled like a wrong password.
      if let wait = await settings.throttle.wait(for: request.remoteAddress) {
        return (throttledResponse(wait), "login throttled")
      }
      if request.header("authorization") != nil { _ = await settings.throttle.failed(request.remoteAddress) }
      return (.text("Unauthorized\n", status: 401), "no valid GoogleLogin auth")
    }
    let actionToken = login?.actionToken ?? anonymousActionToken
    if tokenOnly {
      var response = ServerResponse.text(actionToken + "\n")
      response.headers.append((name: "Cache-Control", value: "no-store"))
      return (response, nil)
    }
    // newsboat sends the token as `token` answered it, its line break included: white space around it is not part
    // of it.
    let sent = (request.parameter("T") ?? "").trimmingWhiteSpace
    if ReaderAPI.needsActionToken(request), !Sodium.equal(sent, actionToken) {
      var response = ServerResponse.text("Unauthorized\n", status: 401)
      response.headers.append((name: "Google-Bad-Token", value: "true"))
      return (response, "action token T missing or wrong")
    }
    let user = login?.user ?? settings.credentials?.user ?? "news"
    return (await ReaderAPI(library: library, user: user).handle(request), nil)
  }

  /// The token of an `Authorization: GoogleLogin auth=…` value, or `nil`.
  static func googleLoginToken(_ header: String?) -> String? {
    guard let header, header.lowercased().hasPrefix("googlelogin ") else { return nil }
    let rest = header.dropFirst("googlelogin ".count).trimmingWhiteSpace
    guard rest.lowercased().hasPrefix("auth=") else { return nil }
    let token = String(rest.dropFirst(5))
    return token.isEmpty ? nil : token
  }

  // MARK: - Web sessions

  private func login(_ request: ServerRequest) async -> Answer {
    let next = Self.localPath(request.parameter("next")) ?? "/"
    guard request.method == "POST" else {
      guard request.method == "GET" || request.method == "HEAD" else {
        return (.text("method not allowed\n", status: 405), nil)
      }
      return (LoginPage.response(next: next, failed: false, status: 200), nil)
    }
    let user = request.formFields.first { $0.name == "user" }?.value ?? ""
    let password = request.formFields.first { $0.name == "password" }?.value ?? ""
    var signedIn: String? = user.isEmpty ? nil : user
    if let credentials = settings.credentials {
      switch await attemptLogin(request.remoteAddress, { credentials.verify(user: user, password: password) }) {
      case .accepted: signedIn = credentials.user
      case .refused: return (LoginPage.response(next: next, failed: true, status: 401), "login failed")
      case .throttled(let wait):
        var page = LoginPage.response(next: next, failed: true, status: 429)
        page.headers.append((name: "Retry-After", value: String(max(1, Int(wait.components.seconds) + 1))))
        return (page, "login throttled")
      }
    }
    if let old = Self.cookie(Self.sessionCookie, in: request) { await sessions.endSession(old) }
    let (token, _) = await sessions.newSession(user: signedIn)
    return (Self.redirect(to: next, cookie: sessionCookie(token, for: request)), nil)
  }

  private func logout(_ request: ServerRequest) async -> Answer {
    if let token = Self.cookie(Self.sessionCookie, in: request) { await sessions.endSession(token) }
    let expired = "\(Self.sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
    return (Self.redirect(to: "/login", cookie: expired), nil)
  }

  private func web(_ request: ServerRequest, sessionOnly: Bool) async -> Answer {
    var session = await Self.cookie(Self.sessionCookie, in: request).asyncMap { await sessions.session($0) } ?? nil
    var newCookie: String?
    if session == nil {
      if settings.credentials != nil {
        guard Self.isSafe(request.method) else { return (.text("sign in first: /login\n", status: 401), "no session") }
        var target = request.path
        if !request.query.isEmpty {
          target +=
            "?"
            + request.query.map { Self.formEncoded($0.name) + "=" + Self.formEncoded($0.value) }
            .joined(separator: "&")
        }
        return (Self.redirect(to: "/login?next=" + Self.formEncoded(target), cookie: nil), nil)
      }
      let (token, made) = await sessions.newSession(user: nil)
      session = made
      newCookie = sessionCookie(token, for: request)
    }
    guard let session else { return (.text("sign in first: /login\n", status: 401), "no session") }
    if !Self.isSafe(request.method) {
      let sent = request.header("x-csrf-token") ?? request.formFields.first { $0.name == "csrf" }?.value ?? ""
      guard Sodium.equal(sent, session.csrfToken) else {
        return (.text("missing or wrong CSRF token\n", status: 403), "CSRF token missing or wrong")
      }
    }
    var response: ServerResponse
    if sessionOnly {
      let object: [String: Any] = ["csrfToken": session.csrfToken, "user": session.user ?? NSNull()]
      let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
      response = ServerResponse(
        status: 200, type: "application/json", data: data, headers: [(name: "Cache-Control", value: "no-store")])
    } else {
      response = await WebReader(library: library).handle(request, session: session)
    }
    if let newCookie { response.headers.append((name: "Set-Cookie", value: newCookie)) }
    return (response, nil)
  }

  /// The `Set-Cookie` value of a new session: `Secure` unless the server is on loopback and the request did not
  /// come through a TLS proxy (`X-Forwarded-Proto: https`).
  private func sessionCookie(_ token: String, for request: ServerRequest) -> String {
    let secure = secureCookies || request.header("x-forwarded-proto")?.lowercased() == "https"
    return "\(Self.sessionCookie)=\(token); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
  }

  /// The value of cookie `name` in the request's `Cookie` header fields (RFC 6265 §5.4), or `nil`.
  static func cookie(_ name: String, in request: ServerRequest) -> String? {
    for header in request.headers where header.name == "cookie" {
      for pair in header.value.split(separator: ";") {
        let trimmed = pair.trimmingWhiteSpace
        if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
      }
    }
    return nil
  }

  /// `text` when it is a path of this server, else `nil`: the one rule of every redirect target a request names
  /// (the login's `next`, the web reader's `back`), so that a redirect never leaves the server. A path starts with
  /// one `/`; `//…` and any backslash (`/\…`, which browsers read as another host) are refused, and so are white
  /// space, control characters and DEL, which a browser may drop or a header cannot carry.
  static func localPath(_ text: String?) -> String? {
    guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"),
      !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
    else { return nil }
    return text
  }

  private static func redirect(to location: String, cookie: String?) -> ServerResponse {
    var headers: [(name: String, value: String)] = [(name: "Location", value: location)]
    if let cookie { headers.append((name: "Set-Cookie", value: cookie)) }
    headers.append((name: "Cache-Control", value: "no-store"))
    return ServerResponse(status: 303, headers: headers)
  }

  /// `text` percent-encoded for a query value.
  static func formEncoded(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~/")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
  }
}

extension Optional {
  fileprivate func asyncMap<T>(_ transform: (Wrapped) async -> T) async -> T? {
    guard let self else { return nil }
    return await transform(self)
  }
}
