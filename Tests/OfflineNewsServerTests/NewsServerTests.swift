import Foundation
import OfflineNews
import OfflineNewsHTTP
import Synchronization
import Testing

@testable import OfflineNewsServer

/// The front door over the real transport, with URLSession: every request's checks (Host, Origin, credentials,
/// tokens, CSRF), the security header fields and the request log. The APIs and the web reader behind it are
/// stubs here (404) or the other helpers' code: passing the door shows as their answer, not 401/403/421.
@Suite struct NewsServerTests {
  static func basic(_ user: String, _ password: String) -> String {
    "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
  }

  @Test func aForeignHostIsRefused421AndLogged() async throws {
    let library = try TestLibrary()
    let lines = LogLines()
    let server = try startServer(library: library.served, names: ["news.example"], log: lines.log)
    let client = TestClient(port: server.port)
    let foreign = try await client.request("GET", "/", headers: ["Host": "evil.example:\(server.port)"])
    #expect(foreign.status == 421)
    #expect(foreign.header("X-Content-Type-Options") == "nosniff")
    for host in ["127.0.0.1:\(server.port)", "localhost:\(server.port)", "news.example", "NEWS.example:443"] {
      let allowed = try await client.request("GET", "/v1/me", headers: ["Host": host])
      #expect(allowed.status != 421, "Host: \(host)")
    }
    #expect(lines.all.contains { $0.hasPrefix("GET / 421 ") && $0.contains("foreign host \"evil.example:") })
    await server.stop()
  }

  @Test func hostCheckRules() {
    let loopback = HostCheck(listenHost: "127.0.0.1", names: ["News.Example"])
    #expect(loopback.allows("127.0.0.1:8080"))
    #expect(loopback.allows("[::1]:8080"))
    #expect(loopback.allows("localhost"))
    #expect(loopback.allows("news.example:8443"))
    #expect(!loopback.allows("evil.example"))
    #expect(!loopback.allows("127.0.0.1.evil.example"))
    #expect(!loopback.allows(nil))
    #expect(!loopback.allows("a:b:c"))
    let remote = HostCheck(listenHost: "192.0.2.7")
    #expect(!remote.allows("localhost"))
    #expect(remote.allows("192.0.2.7:8080"))
  }

  @Test func everyResponseCarriesTheSecurityHeaders() async throws {
    let library = try TestLibrary()
    let server = try startServer(library: library.served)
    let client = TestClient(port: server.port)
    for path in ["/", "/v1/me", "/login", "/reader/api/0/token", "/nowhere"] {
      let response = try await client.request("GET", path)
      #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path)")
      #expect(response.header("X-Frame-Options") == "DENY", "\(path)")
      // The web reader's pages say `same-origin` (Chromium sends `Origin: null` with a page's own POSTs under
      // `no-referrer`, which the cross-site check refuses); every other response `no-referrer`.
      let referrer = ["/", "/nowhere"].contains(path) ? "same-origin" : "no-referrer"
      #expect(response.header("Referrer-Policy") == referrer, "\(path)")
    }
    await server.stop()
  }

  @Test func minifluxNeedsBasicOrTheAPIToken() async throws {
    let library = try TestLibrary()
    let lines = LogLines()
    let server = try startServer(library: library.served, credentials: try testCredentials(), log: lines.log)
    defer { Task { await server.stop() } }
    let url = server.base + "/v1/me"
    guard let none = try await curlRequest("GET", url) else { return }
    #expect(none.status == 401)
    #expect(none.header("WWW-Authenticate")?.hasPrefix("Basic realm=") == true)
    #expect(none.text.contains("error_message"))
    let wrong = try await curlRequest("GET", url, headers: ["Authorization": Self.basic("alice", "wrong")])
    #expect(wrong?.status == 401)
    let wrongUser = try await curlRequest(
      "GET", url, headers: ["Authorization": Self.basic("bob", "correct horse")])
    #expect(wrongUser?.status == 401)
    // The API answers: the door let it through.
    let right = try await curlRequest("GET", url, headers: ["Authorization": Self.basic("alice", "correct horse")])
    #expect(right?.status == 200)
    let again = try await curlRequest(
      "GET", server.base + "/v1/feeds", headers: ["Authorization": Self.basic("alice", "correct horse")])
    #expect(again?.status == 200)
    #expect(try await curlRequest("GET", url, headers: ["X-Auth-Token": "api-token-1"])?.status == 200)
    #expect(try await curlRequest("GET", url, headers: ["X-Auth-Token": "api-token-2"])?.status == 401)
    #expect(lines.all.filter { $0.contains("(login failed)") }.count == 3)
    #expect(lines.all.filter { $0.contains("(no credentials)") }.count == 1)
    #expect(!lines.all.joined().contains("correct horse"))
    #expect(!lines.all.joined().contains("api-token"))
  }

  @Test func readerLoginTokenAndActionToken() async throws {
    let library = try TestLibrary()
    let lines = LogLines()
    let server = try startServer(library: library.served, credentials: try testCredentials(), log: lines.jsonLog)
    let client = TestClient(port: server.port)
    let form = ["Content-Type": "application/x-www-form-urlencoded"]
    let bad = try await client.request(
      "POST", "/accounts/ClientLogin", headers: form, body: Data("Email=alice&Passwd=nope".utf8))
    #expect(bad.status == 401)
    #expect(bad.text == "Error=BadAuthentication\n")
    let good = try await client.request(
      "POST", "/api/greader.php/accounts/ClientLogin", headers: form,
      body: Data("Email=alice&Passwd=correct+horse".utf8))
    #expect(good.status == 200)
    let lines3 = good.text.split(separator: "\n")
    #expect(lines3.count == 3)
    #expect(lines3.first?.hasPrefix("SID=") == true)
    let auth = try #require(lines3.last.map { String($0.dropFirst("Auth=".count)) })
    #expect(auth.hasPrefix("alice/"))
    let header = ["Authorization": "GoogleLogin auth=\(auth)"]
    #expect(try await client.request("GET", "/reader/api/0/user-info").status == 401)
    #expect(
      try await client.request("GET", "/reader/api/0/user-info", headers: ["Authorization": "GoogleLogin auth=x"])
        .status == 401)
    let token = try await client.request("GET", "/reader/api/0/token", headers: header)
    #expect(token.status == 200)
    let t = token.text.trimmingCharacters(in: .newlines)
    #expect(t.count == 40)
    #expect(try await client.request("GET", "/reader/api/0/user-info", headers: header).status == 200)
    let noT = try await client.request(
      "POST", "/reader/api/0/edit-tag", headers: header.merging(form) { $1 }, body: Data("i=1&a=x".utf8))
    #expect(noT.status == 401)
    #expect(noT.header("Google-Bad-Token") == "true")
    let withT = try await client.request(
      "POST", "/reader/api/0/edit-tag", headers: header.merging(form) { $1 }, body: Data("i=1&a=x&T=\(t)".utf8))
    #expect(withT.status != 401 && withT.status != 403, "the door let it through: \(withT.status)")
    // Reads may be POSTs without T (FreshRSS checks T only on state changes); every state change needs it.
    for read in ["/reader/api/0/stream/items/contents", "/api/greader.php/reader/api/0/stream/contents"] {
      let post = try await client.request(
        "POST", read, headers: header.merging(form) { $1 }, body: Data("i=1&n=5".utf8))
      #expect(post.status == 200, "\(read): \(post.status)")
      #expect(post.header("Google-Bad-Token") == nil)
    }
    for change in ReaderAPI.stateChangingCalls.sorted() {
      let post = try await client.request(
        "POST", "/reader/api/0/" + change, headers: header.merging(form) { $1 },
        body: Data("s=user/-/state/com.google/reading-list".utf8))
      #expect(post.status == 401, "\(change): \(post.status)")
      #expect(post.header("Google-Bad-Token") == "true", "\(change)")
    }
    let log = lines.all.joined()
    #expect(!log.contains(auth) && !log.contains(t) && !log.contains("correct"))
    // JSON lines: each a complete object.
    for line in lines.all {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(Set(object.keys) == ["method", "path", "status", "ms", "peer", "note"])
    }
    await server.stop()
  }

  @Test func theWebReaderNeedsASessionAndItsCSRFToken() async throws {
    let library = try TestLibrary()
    let server = try startServer(library: library.served, credentials: try testCredentials())
    let client = TestClient(port: server.port)
    let anonymous = try await client.request("GET", "/article/1?x=a%20b")
    #expect(anonymous.status == 303)
    #expect(anonymous.header("Location") == "/login?next=/article/1%3Fx%3Da%2520b")
    let page = try await client.request("GET", "/login?next=/x")
    #expect(page.status == 200)
    #expect(page.text.contains("<form method=\"post\" action=\"/login\">"))
    #expect(page.text.contains("value=\"/x\""))
    #expect(page.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
    let form = ["Content-Type": "application/x-www-form-urlencoded"]
    let wrong = try await client.request(
      "POST", "/login", headers: form, body: Data("user=alice&password=no&next=/x".utf8))
    #expect(wrong.status == 401)
    #expect(wrong.text.contains("Wrong user or password"))
    let right = try await client.request(
      "POST", "/login", headers: form, body: Data("user=alice&password=correct+horse&next=//evil.example".utf8))
    #expect(right.status == 303)
    #expect(right.header("Location") == "/")
    let setCookie = try #require(right.header("Set-Cookie"))
    #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && !setCookie.contains("Secure"))
    let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
    let session = try await client.request("GET", "/session", headers: ["Cookie": cookie])
    #expect(session.status == 200)
    let object = try #require(try JSONSerialization.jsonObject(with: session.body) as? [String: Any])
    #expect(object["user"] as? String == "alice")
    let csrf = try #require(object["csrfToken"] as? String)
    #expect(try await client.request("GET", "/", headers: ["Cookie": cookie]).status == 200, "the web reader's home")
    let noToken = try await client.request("POST", "/read/1", headers: ["Cookie": cookie])
    #expect(noToken.status == 403)
    let header = try await client.request("POST", "/read/1", headers: ["Cookie": cookie, "X-CSRF-Token": csrf])
    #expect(header.status == 404)
    let field = try await client.request(
      "POST", "/read/1", headers: ["Cookie": cookie].merging(form) { $1 }, body: Data("csrf=\(csrf)".utf8))
    #expect(field.status == 404)
    let crossSite = try await client.request(
      "POST", "/read/1", headers: ["Cookie": cookie, "X-CSRF-Token": csrf, "Origin": "http://evil.example"])
    #expect(crossSite.status == 403)
    let sameSite = try await client.request(
      "POST", "/read/1",
      headers: ["Cookie": cookie, "X-CSRF-Token": csrf, "Origin": "http://127.0.0.1:\(server.port)"])
    #expect(sameSite.status == 404)
    let out = try await client.request("GET", "/logout", headers: ["Cookie": cookie])
    #expect(out.status == 303)
    #expect(try await client.request("GET", "/", headers: ["Cookie": cookie]).status == 303)
    await server.stop()
  }

  @Test func withoutCredentialsAProxiedRequestIsRefusedAndCrossSiteFetchesToo() async throws {
    let library = try TestLibrary()
    let server = try startServer(library: library.served)
    let client = TestClient(port: server.port)
    for header in ["X-Forwarded-For", "Forwarded", "X-Real-IP", "X-Forwarded-Host"] {
      let proxied = try await client.request("GET", "/v1/me", headers: [header: "203.0.113.9"])
      #expect(proxied.status == 403, "\(header)")
    }
    #expect(try await client.request("GET", "/v1/me").status == 200, "the same request, not proxied")
    let crossSite = try await client.request(
      "POST", "/reader/api/0/edit-tag", headers: ["Sec-Fetch-Site": "cross-site"])
    #expect(crossSite.status == 403)
    await server.stop()
    let withCredentials = try startServer(library: library.served, credentials: try testCredentials())
    let behindProxy = try await curlRequest(
      "GET", withCredentials.base + "/v1/me",
      headers: ["X-Forwarded-For": "203.0.113.9", "X-Auth-Token": "api-token-1"])
    #expect(behindProxy?.status == 200, "with credentials a proxy may forward")
    await withCredentials.stop()
  }

  @Test func withoutCredentialsEveryRequestIsAllowedButCSRFStillApplies() async throws {
    let library = try TestLibrary()
    let server = try startServer(library: library.served)
    let client = TestClient(port: server.port)
    #expect(try await client.request("GET", "/v1/me").status != 401, "no credentials: the API is open on loopback")
    let login = try await client.request("GET", "/accounts/ClientLogin?Email=anyone&Passwd=anything")
    #expect(login.status == 200)
    #expect(login.text.contains("Auth=anyone/"))
    let web = try await client.request("GET", "/")
    #expect(web.status == 200)
    #expect(web.header("Set-Cookie")?.hasPrefix("news_session=") == true)
    #expect(try await client.request("POST", "/read/1").status == 403)
    let t = try await client.request("GET", "/reader/api/0/token").text.trimmingCharacters(in: .newlines)
    let form = ["Content-Type": "application/x-www-form-urlencoded"]
    let passed = try await client.request("POST", "/reader/api/0/edit-tag", headers: form, body: Data("T=\(t)".utf8))
    #expect(passed.status != 401 && passed.status != 403, "the door let it through: \(passed.status)")
    let spaced = try await client.request(
      "POST", "/reader/api/0/edit-tag", headers: form, body: Data("T=\(t)%0A".utf8))
    #expect(spaced.status != 401, "newsboat's token with its line break is the token")
    #expect(try await client.request("POST", "/reader/api/0/edit-tag", headers: form).status == 401)
    await server.stop()
  }

  @Test func failedLoginsAreSlowedPerPeer() async throws {
    let throttle = LoginThrottle(base: .milliseconds(100), maximum: .seconds(1))
    #expect(await throttle.wait(for: "192.0.2.1") == nil)
    #expect(await throttle.failed("192.0.2.1") == .milliseconds(100))
    #expect(await throttle.failed("192.0.2.1") == .milliseconds(200))
    #expect(await throttle.failed("192.0.2.1") == .milliseconds(400))
    #expect(await throttle.wait(for: "192.0.2.1") != nil)
    #expect(await throttle.wait(for: "192.0.2.2") == nil)
    for _ in 0..<10 { _ = await throttle.failed("192.0.2.1") }
    #expect(await throttle.failed("192.0.2.1") == .seconds(1))
    await throttle.succeeded("192.0.2.1")
    #expect(await throttle.wait(for: "192.0.2.1") == nil)

    let slow = LoginThrottle(base: .milliseconds(300), maximum: .seconds(2))
    // Over HTTP: a failed answer is held, and a login tried before the delay has passed is refused 429.
    let library = try TestLibrary()
    let lines = LogLines()
    let server = try startServer(
      library: library.served, credentials: try testCredentials(), log: lines.log,
      throttle: slow)
    defer { Task { await server.stop() } }
    let url = server.base + "/v1/me"
    let wrong = ["Authorization": Self.basic("alice", "wrong")]
    let started = ContinuousClock.now
    guard let first = try await curlRequest("GET", url, headers: wrong) else { return }
    #expect(first.status == 401)
    #expect(ContinuousClock.now - started >= .milliseconds(300))
    async let second = curlRequest("GET", url, headers: wrong)
    // Once the second failure is on record (its answer held 600 ms), a third try is refused at once.
    while await slow.failures(of: "127.0.0.1") < 2 { try await Task.sleep(for: .milliseconds(10)) }
    let third = try await curlRequest("GET", url, headers: ["Authorization": Self.basic("alice", "correct horse")])
    #expect(third?.status == 429)
    #expect(third?.header("Retry-After") != nil)
    #expect(try await second?.status == 401)
    #expect(lines.all.contains { $0.contains("(login throttled)") })
  }

  @Test func atMostTwoPasswordChecksRunAtOnce() async {
    let slots = VerificationSlots(limit: 2)
    final class Counter: Sendable {
      let value = Mutex((now: 0, most: 0))
    }
    let counter = Counter()
    await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask {
          await slots.run {
            counter.value.withLock {
              $0.now += 1
              $0.most = max($0.most, $0.now)
            }
            usleep(20_000)
            counter.value.withLock { $0.now -= 1 }
            return true
          }
        }
      }
      for await result in group { #expect(result) }
    }
    // Two at most (exactly two when the pool has two threads to run them on).
    #expect((1...2).contains(counter.value.withLock { $0.most }))
  }

  @Test func basicAndGoogleLoginHeadersAreRead() {
    #expect(NewsServer.basicCredentials("Basic YWxpY2U6cGE6c3M=")! == ("alice", "pa:ss"))
    #expect(NewsServer.basicCredentials("Bearer x") == nil)
    #expect(NewsServer.googleLoginToken("GoogleLogin auth=alice/abc") == "alice/abc")
    #expect(NewsServer.googleLoginToken("GoogleLogin auth=") == nil)
    // One rule for every redirect target (the login's `next`, the web reader's `back`).
    for foreign in [
      "//evil.example", "/\\evil.example", "/a\\b", "https://evil.example/", "/a b", "/a\u{7F}", "/\t/x", "",
    ] {
      #expect(NewsServer.localPath(foreign) == nil, "\(foreign)")
    }
    #expect(NewsServer.localPath(nil) == nil)
    #expect(NewsServer.localPath("/a?b") == "/a?b")
  }

  @Test func aPasswordHashIsArgon2idAndVerifies() throws {
    let credentials = try testCredentials()
    #expect(credentials.passwordHash.hasPrefix("$argon2id$"))
    #expect(ServerCredentials.isPasswordHash(credentials.passwordHash))
    #expect(credentials.verify(user: "alice", password: "correct horse"))
    #expect(credentials.verify(user: "alice", password: "correct horse"))  // remembered
    #expect(!credentials.verify(user: "alice", password: "correct horsE"))
    #expect(!credentials.verify(user: "Alice", password: "correct horse"))
    #expect(!ServerCredentials(user: "a", passwordHash: "garbage").verify(user: "a", password: "x"))
    #expect(ServerCredentials.randomToken().count == 64)
    #expect(ServerCredentials.randomToken() != ServerCredentials.randomToken())
  }
}
