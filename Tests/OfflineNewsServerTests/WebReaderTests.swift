import Foundation
import OfflineNews
import OfflineNewsHTTP
import OfflineNewsModel
import OfflineNewsStorage
import TestSupport
import Testing

@testable import OfflineNewsServer

/// The web reader's pages and actions, in process: every page parsed back with libxml2's HTML parser.
@Suite struct WebReaderTests {
  @Test func everyPageCarriesTheContentSecurityPolicyAndNoInlineScriptOrStyle() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    for target in ["/", "/articles", "/articles?unread=1", "/search?q=ferry", "/article/\(handle)", "/nowhere"] {
      let response = await fixture.get(target)
      #expect(response.header("Content-Security-Policy") == WebPage.contentSecurityPolicy, "\(target)")
      #expect(response.header("Content-Type") == "text/html; charset=utf-8")
      let page = WebFixture.page(response)
      for script in page.elements(named: "script") {
        #expect(script["src"]?.hasPrefix("/assets/reader.js?v=") == true, "\(target)")
        #expect(script.textContent.isEmpty)
      }
      #expect(page.elements(named: "style").isEmpty)
      #expect((page.root?.descendants ?? []).allSatisfy { $0.kind != .element || $0["style"] == nil })
      #expect(
        (page.root?.descendants ?? []).allSatisfy { node in
          node.kind != .element || !node.attributes.contains { $0.name.hasPrefix("on") }
        }, "\(target)")
      let links = page.elements(named: "link").compactMap { $0["href"] }
      // The style sheet, and an empty icon so that the browser asks for no /favicon.ico.
      #expect(links.allSatisfy { $0.hasPrefix("/assets/") || $0 == "data:," })
    }
  }

  @Test func theHomePageListsFoldersAndSourcesWithCountsAgesAndErrors() async throws {
    let fixture = try await WebFixture()
    try await fixture.storage.recordFetchError(
      "connection refused", forQuery: fixture.sources[1].query.cacheKey, at: Timestamp(WebFixture.now))
    let page = WebFixture.page(await fixture.get("/"))
    let sources = page.elements(classed: "source")
    #expect(sources.count == 2)
    let harbour = try #require(sources.first { $0.textContent.contains("harbour") }, "by its name, not its title")
    #expect(harbour.descendants(named: "span").first { $0["class"] == "count" }?.textContent == "3")
    #expect(harbour.textContent.contains("fetched just now"))
    let tech = try #require(sources.first { $0.textContent.contains("Tech <Wire> & Co") })
    #expect(tech["class"] == "source failing")
    #expect(tech.textContent.contains("last error just now: connection refused"))
    let folders = page.elements(classed: "folders").first?.descendants(named: "a").map(\.textContent)
    #expect(folders == ["Local", "Tech", "Web"])
    let link = try #require(harbour.descendants(named: "a").first?["href"])
    #expect(link == "/articles?unread=1&source=\(ServedIdentifiers.feedID(forSourceNamed: "harbour"))")
  }

  @Test func theListIsNewestFirstAndFiltersBySourceFolderUnreadAndStarred() async throws {
    let fixture = try await WebFixture()
    func titles(_ target: String) async -> [String] {
      WebFixture.page(await fixture.get(target)).elements(classed: "entry").compactMap {
        $0.descendants(named: "a").first?.textContent
      }
    }
    #expect(
      await titles("/articles") == [
        "<script>alert('title')</script> & friends", "Council opens the ferry terminal", "Harbour note 1",
        "Harbour note 2",
      ])
    let harbour = ServedIdentifiers.feedID(forSourceNamed: "harbour")
    #expect(await titles("/articles?source=\(harbour)").count == 3)
    let tech = ServedIdentifiers.categoryID(forFolder: ["Tech"])
    #expect(await titles("/articles?folder=\(tech)") == ["<script>alert('title')</script> & friends"])
    #expect(await fixture.get("/articles?source=12345").status == 404)

    try await fixture.repository.markRead(url: "https://harbour.example/story-1")
    try await fixture.repository.bookmark(url: "https://harbour.example/story-2")
    #expect(
      await titles("/articles?unread=1&source=\(harbour)") == ["Council opens the ferry terminal", "Harbour note 2"])
    #expect(await titles("/articles?starred=1") == ["Harbour note 2"])
  }

  @Test func theListPagesByFifty() async throws {
    let fixture = try await WebFixture()
    let many = (0..<60).map { index in
      Article(
        url: webURL("https://many.example/\(index)"), title: "Many \(index)",
        publishedAt: WebFixture.now.addingTimeInterval(-86400 - Double(index)))
    }
    try await fixture.repository.save(many, for: NewsQuery(url: webURL("http://127.0.0.1:9/many.xml")))
    let first = WebFixture.page(await fixture.get("/articles"))
    #expect(first.elements(classed: "entry").count == 50)
    let next = try #require(first.elements(named: "a").first { $0["rel"] == "next" }?["href"])
    #expect(next == "/articles?page=2")
    let second = WebFixture.page(await fixture.get(next))
    #expect(second.elements(classed: "entry").count == 14)
    #expect(second.elements(named: "a").first { $0["rel"] == "next" } == nil)
    #expect(second.elements(named: "a").first { $0["rel"] == "prev" }?["href"] == "/articles")
  }

  @Test func everyTextIsEscaped() async throws {
    let fixture = try await WebFixture()
    for target in [
      "/articles", "/search?q=friends", "/article/\(ArticleIdentity.handle(forKey: "https://tech.example/xss"))",
    ] {
      let response = await fixture.get(target)
      let page = WebFixture.page(response)
      // The hostile title and author are text, never elements: the only scripts are the reader's own.
      #expect(page.elements(named: "script").count == 1, "\(target)")
      #expect(page.elements(named: "img").allSatisfy { $0["onerror"] == nil })
      let text = page.root?.textContent ?? ""
      #expect(text.contains("<script>alert('title')</script> & friends"), "\(target)")
    }
    let article = WebFixture.page(
      await fixture.get("/article/\(ArticleIdentity.handle(forKey: "https://tech.example/xss"))"))
    #expect(article.root?.textContent.contains("Eve \"<img src=x onerror=alert(1)>\"") == true)
    let content = try #require(article.elements(classed: "content").first)
    #expect(content.descendants(named: "a").first?["href"] == nil)
    #expect(content.descendants(named: "p").first?["onclick"] == nil)
    // A search text with markup is escaped in the heading and the field.
    let search = WebFixture.page(await fixture.get("/search?q=%3Cimg+src%3Dx+onerror%3Dalert(1)%3E"))
    #expect(search.elements(named: "img").isEmpty)
    #expect(search.elements(named: "input").first { $0["name"] == "q" }?["value"] == "<img src=x onerror=alert(1)>")
  }

  @Test func searchShowsHitsWithMarkedSnippets() async throws {
    let fixture = try await WebFixture()
    let page = WebFixture.page(await fixture.get("/search?q=ribbon"))
    let hits = page.elements(classed: "entry")
    #expect(hits.count == 1)
    #expect(hits.first?.descendants(named: "a").first?.textContent == "Council opens the ferry terminal")
    let marks = page.elements(named: "mark").map(\.textContent)
    #expect(marks.map { $0.lowercased() } == ["ribbon"])
    let none = WebFixture.page(await fixture.get("/search?q=zeppelin"))
    #expect(none.elements(classed: "entry").isEmpty)
    #expect(none.root?.textContent.contains("No article matches.") == true)
    let unsearchable = await fixture.get("/search?q=%22%22")
    #expect(unsearchable.status == 200)
  }

  @Test func theArticleShowsItsStoredFullTextWithItsOfflineImage() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    let page = WebFixture.page(await fixture.get("/article/\(handle)?ctx=&i=1"))
    let content = try #require(page.elements(classed: "content").first)
    #expect(content.descendants(named: "h2").first?.textContent == "The new terminal")
    let images = content.descendants(named: "img")
    #expect(images.map { $0["src"] } == ["/images/\(handle)/0"])
    // The image the store has no copy of is its alt text (here none): no request leaves for elsewhere.
    #expect(!(page.root?.descendants ?? []).contains { $0["src"]?.contains("elsewhere.example") == true })
    let image = await fixture.get("/images/\(handle)/0")
    #expect(image.status == 200)
    #expect(image.header("Content-Type") == "image/png")
    guard case .file(let path) = image.body else {
      Issue.record("not a file body")
      return
    }
    #expect(FileManager.default.contents(atPath: path) == fixture.png)
    // Previous and next in the list it came from.
    let pager = page.elements(named: "a")
    #expect(pager.first { $0["rel"] == "prev" }?["title"] == "<script>alert('title')</script> & friends")
    #expect(pager.first { $0["rel"] == "next" }?["title"] == "Harbour note 1")
    #expect(pager.first { $0["id"] == "original" }?["href"] == "https://harbour.example/story-0")
  }

  @Test func aSummaryIsShownWhenThereIsNoFullText() async throws {
    let fixture = try await WebFixture()
    let page = WebFixture.page(
      await fixture.get("/article/\(ArticleIdentity.handle(forKey: "https://harbour.example/story-1"))"))
    let content = try #require(page.elements(classed: "content").first)
    #expect(content.textContent == "Summary 1 about the ferry.")
    #expect(await fixture.get("/article/0000000000000000").status == 404)
    #expect(await fixture.get("/article/not-a-handle").status == 404)
  }

  @Test func aShortHandleAsTheCLIPrintsItRedirectsToTheArticle() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    // `news list` prints 6 digits at least; any case, and the list context kept.
    let response = await fixture.get("/article/\(handle.prefix(6).uppercased())?i=1")
    #expect(response.status == 302)
    #expect(response.header("Location") == "/article/\(handle)?i=1")
    #expect(WebFixture.page(await fixture.get("/article/\(handle)")).elements(named: "h1").count == 1)
    let unknown = await fixture.get("/article/\(handle.hasPrefix("ffff") ? "eeee" : "ffff")")
    #expect(unknown.status == 404)
  }

  /// Two article keys whose handles share their first 4 digits and differ at the 5th (found by trying keys: the
  /// handle is a hash, so a pair turns up within a few hundred).
  static func twinKeys() throws -> (String, String) {
    var seen: [String: String] = [:]
    for n in 0..<200_000 {
      let key = "https://twins.example/\(n)"
      let handle = ArticleIdentity.handle(forKey: key)
      if let other = seen[String(handle.prefix(4))], ArticleIdentity.handle(forKey: other).prefix(5) != handle.prefix(5)
      {
        return (other, key)
      }
      seen[String(handle.prefix(4))] = key
    }
    throw POSIXError(.ENOENT)
  }

  @Test(
    "a short handle several articles share lists them (300), each linked to its page, as news show calls it ambiguous")
  func anAmbiguousShortHandleListsTheCandidates() async throws {
    let fixture = try await WebFixture()
    let (first, second) = try Self.twinKeys()
    let twins = [first, second].enumerated().map { index, key in
      Article(
        url: webURL(key), title: "Twin \(index + 1)", summary: "A twin.",
        publishedAt: WebFixture.now.addingTimeInterval(-600 * Double(index + 1)), sourceName: "Twins")
    }
    try await fixture.repository.save(
      twins, for: NewsSource(name: "Twins", url: webURL("http://127.0.0.1:9/twins.xml")).query)
    let prefix = String(ArticleIdentity.handle(forKey: first).prefix(4))
    // The library's lookup (news show's) says the same.
    guard case .ambiguous(let candidates) = try await fixture.repository.article(handleOrURL: prefix) else {
      Issue.record("\(prefix) is not ambiguous to the library")
      return
    }
    #expect(Set(candidates.map(\.url.absoluteString)) == [first, second])

    let response = await fixture.get("/article/\(prefix.uppercased())")
    #expect(response.status == 300)
    let page = WebFixture.page(response)
    #expect(page.elements(named: "h1").first?.textContent == "Which article?")
    let links = page.elements(classed: "title").compactMap { $0["href"] }
    let ids = twins.map { "/article/\(WebFixture.handle($0))" }
    #expect(Set(links) == Set(ids), "\(links)")
    #expect(page.elements(classed: "title").map(\.textContent).sorted() == ["Twin 1", "Twin 2"])
    // Each link opens its article; one more digit finds one.
    for link in links { #expect(await fixture.get(link).status == 200, "\(link)") }
    let longer = String(ArticleIdentity.handle(forKey: second).prefix(5))
    #expect(await fixture.get("/article/\(longer)").status == 302)
  }

  @Test func formsMarkReadAndStarAndRedirectBackWithoutJavaScript() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    let page = WebFixture.page(await fixture.get("/articles"))
    let form = try #require(page.elements(named: "form").first { $0["action"] == "/article/\(handle)/read" })
    #expect(form["method"] == "post")
    let fields = form.descendants(named: "input").map { ($0["name"] ?? "", $0["value"] ?? "") }
    #expect(fields.contains { $0 == ("csrf", "csrf-test-token") })
    #expect(fields.contains { $0 == ("read", "1") })
    let response = await fixture.post("/article/\(handle)/read", fields: fields)
    #expect(response.status == 303)
    #expect(response.header("Location") == "/articles")
    #expect(try await fixture.repository.article(url: fixture.story.url.absoluteString)?.isRead == true)

    let star = await fixture.post("/article/\(handle)/star", fields: [("star", "1")], json: true)
    #expect(star.status == 200)
    #expect(String(decoding: star.data ?? Data(), as: UTF8.self) == #"{"read":true,"starred":true}"#)
    #expect(try await fixture.repository.article(url: fixture.story.url.absoluteString)?.isBookmarked == true)
    let unread = await fixture.post("/article/\(handle)/read", fields: [("read", "0"), ("back", "//evil.example/")])
    #expect(unread.header("Location") == "/article/\(handle)")
    #expect(try await fixture.repository.article(url: fixture.story.url.absoluteString)?.isRead == false)
  }

  @Test func markAllReadMarksEveryArticleOfTheListAndOnlyThose() async throws {
    let fixture = try await WebFixture()
    let harbour = ServedIdentifiers.feedID(forSourceNamed: "harbour")
    let page = WebFixture.page(await fixture.get("/articles?source=\(harbour)"))
    let form = try #require(page.elements(named: "form").first { $0["action"] == "/articles/read" })
    let fields = form.descendants(named: "input").map { ($0["name"] ?? "", $0["value"] ?? "") }
    #expect(fields.contains { $0 == ("csrf", "csrf-test-token") })
    #expect(fields.contains { $0 == ("source", "\(harbour)") })
    // A refresh adds a newer harbour story after the page was drawn: not marked unseen (the form's `upto`).
    let harbourSource = try #require(fixture.sources.first { $0.name == "harbour" })
    let late = Article(
      url: webURL("https://harbour.example/late"), title: "Harbour late news",
      publishedAt: WebFixture.now.addingTimeInterval(-10), sourceName: "Harbour Gazette")
    let stories = try await fixture.repository.read(filter: ArticleFilter(anyOfSources: [harbourSource.match]))
    #expect(stories.count == 3)
    try await fixture.repository.save(stories + [late], for: harbourSource.query)
    let response = await fixture.post("/articles/read", fields: fields)
    #expect(response.status == 303)
    #expect(response.header("Location") == "/articles?source=\(harbour)")
    let counts = try await fixture.repository.counts(matching: .all)
    #expect(counts.unread == 2, "the harbour's three shown are read; the late one and the other source's are not")
    #expect(try await fixture.repository.article(url: late.url.absoluteString)?.isRead == false)
    #expect(await fixture.get("/articles/read").status == 405)
    // A page past the end shows no article, and offers no form that would mark the whole list.
    let empty = WebFixture.page(await fixture.get("/articles?source=\(harbour)&page=9"))
    #expect(!empty.elements(named: "form").contains { $0["action"] == "/articles/read" })
  }

  @Test func getNeverChangesStateAndWrongMethodsAreRefused() async throws {
    let fixture = try await WebFixture()
    let handle = WebFixture.handle(fixture.story)
    #expect(await fixture.get("/article/\(handle)/read").status == 405)
    _ = await fixture.get("/article/\(handle)")
    #expect(try await fixture.repository.article(url: fixture.story.url.absoluteString)?.isRead == false)
    let delete = await fixture.reader.handle(ServerRequest(method: "DELETE", target: "/"), session: fixture.session)
    #expect(delete.status == 405)
    #expect(await fixture.post("/article/\(handle)/delete", fields: []).status == 404)
  }

  @Test func assetsAreServedWithALongCacheAndAnEntityTag() async throws {
    let fixture = try await WebFixture()
    for path in ["/assets/reader.css", "/assets/reader.js"] {
      let response = await fixture.get(path)
      #expect(response.status == 200)
      let etag = try #require(response.header("ETag"))
      #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
      #expect((response.data?.count ?? 0) > 1000)
      let again = await fixture.get(path, headers: [(name: "If-None-Match", value: etag)])
      #expect(again.status == 304)
    }
    #expect(await fixture.get("/assets/../WebReader.swift").status == 404)
    #expect(WebAssets.assets["/assets/reader.css"]?.type == "text/css; charset=utf-8")
  }
}
