import Foundation
import OfflineNews
import OfflineNewsCurl
import TestSupport
import Testing

/// A full-text page that failed can be recovered (issue 30, finding 4): the failure is typed (what, when, when it is
/// tried again), counted per source, and `retryFailed` tries it again at once.
@Suite("Full-text failures: what failed, when it is retried, retrying now")
struct FullTextFailureTests {
  static let html = ["Content-Type": "text/html; charset=utf-8"]

  @Test("a 404 page is a typed failure with its time and retry time; retryFailed asks again at once and recovers")
  func recover() async throws {
    let setup = try ImageSetup()
    let fixed = Switch()
    setup.server.router = { request in
      guard request.target == "/story.html", fixed.isOn else { return .respond(status: 404, body: Data("gone".utf8)) }
      return .respond(status: 200, headers: Self.html, body: storyPage("Back", images: []))
    }
    let articles = try await setup.save(["/story.html"])
    let failedAt = setup.clock.now
    let first = await setup.repository.fetchFullText(for: articles, using: setup.transport)
    #expect(first.failures.map(\.reason) == ["HTTP 404"])
    #expect(first.waiting.isEmpty)

    let limits = FullTextLimits()
    let failure = try #require(try await setup.repository.fullTextFailure(of: articles[0]))
    #expect(failure.cause == .httpStatus(404))
    #expect(failure.key == articles[0].url.absoluteString)
    #expect(failure.failedAt == failedAt.date)
    #expect(failure.retryAfter == failedAt.date.addingTimeInterval(limits.retryAfter))
    #expect(!failure.isDue(at: failedAt.date.addingTimeInterval(60)))
    #expect(failure.isDue(at: failure.retryAfter))
    #expect(try await setup.repository.counts().fullTextFailed == 1)

    // Ten minutes later: skipped and reported as waiting, the page not asked.
    setup.clock.advance(seconds: 600)
    let asked = setup.server.requests.filter { $0.target == "/story.html" }.count
    let waiting = await setup.repository.fetchFullText(for: articles, using: setup.transport)
    #expect(waiting.waiting == [failure])
    #expect(waiting.failures.isEmpty && waiting.fetched == 0)
    #expect(setup.server.requests.filter { $0.target == "/story.html" }.count == asked)

    // Still failing when retried now: noted again, at the new time.
    let again = await setup.repository.fetchFullText(for: articles, using: setup.transport, retryFailed: true)
    #expect(again.failures.map(\.reason) == ["HTTP 404"])
    #expect(again.waiting.isEmpty)
    #expect(setup.server.requests.filter { $0.target == "/story.html" }.count == asked + 1)
    #expect(try await setup.repository.fullTextFailure(of: articles[0])?.failedAt == setup.clock.now.date)

    // The page is back: retried now, stored, the failure gone, the count down to zero.
    fixed.turnOn()
    let recovered = await setup.repository.fetchFullText(for: articles, using: setup.transport, retryFailed: true)
    #expect(recovered.fetched == 1, "\(recovered.failures)")
    #expect(try await setup.repository.fullTextFailure(of: articles[0]) == nil)
    #expect(try await setup.repository.counts().fullTextFailed == 0)
    let stored = try #require(try await setup.repository.article(url: articles[0].url.absoluteString))
    #expect(stored.fullText?.contains("The council met on Tuesday") == true)
  }

  @Test("an article never tried, or with its whole text, has no failure")
  func noFailure() async throws {
    let setup = try ImageSetup()
    setup.server.router = { _ in .respond(status: 200, headers: Self.html, body: storyPage("Fine", images: [])) }
    let articles = try await setup.save(["/fine.html"])
    #expect(try await setup.repository.fullTextFailure(of: articles[0]) == nil)
    _ = await setup.repository.fetchFullText(for: articles, using: setup.transport)
    #expect(try await setup.repository.fullTextFailure(of: articles[0]) == nil)
    #expect(try await setup.repository.counts().fullTextFailed == 0)
  }

  @Test("each cause reads back from the reason noted with the article")
  func causesRoundTrip() {
    let causes: [FullTextFailure.Cause] = [
      .httpStatus(404), .httpStatus(503), .download("connection refused (Could not connect to the server.)"),
      .download("timed out"), .tooLarge(limit: 5_242_880, size: 9_000_000),
      .notAWebPage(contentType: "application/pdf"), .unreadable("bad bytes"), .noReadableArticle,
    ]
    for cause in causes {
      #expect(FullTextFailure.Cause(noted: cause.description) == cause, "\(cause)")
    }
    #expect(FullTextFailure.Cause(noted: "HTTP 404").description == "HTTP 404")
    #expect(FullTextFailure.Cause(noted: "HTTP/2 stream reset") == .download("HTTP/2 stream reset"))
  }
}
