import Foundation
import Testing

@testable import OfflineNewsModel

/// The package's one URL resolver (`URLReference`), checked against RFC 3986 §5.4's examples and its own rules.
@Suite("URLReference: RFC 3986 §5.2 resolution")
struct URLReferenceTests {
  private static let base = URL(string: "http://a/b/c/d;p?q")

  /// RFC 3986 §5.4.1, "Normal Examples", against `http://a/b/c/d;p?q`.
  static let normal: [(String, String)] = [
    ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
    (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"),
    ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"),
  ]

  /// RFC 3986 §5.4.2, "Abnormal Examples" (those without a scheme of their own).
  static let abnormal: [(String, String)] = [
    ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
    ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
    ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
    ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
    ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g#s/./x"),
    ("g#s/../x", "http://a/b/c/g#s/../x"),
  ]

  @Test("the normal examples of RFC 3986 §5.4.1", arguments: normal)
  func normalExamples(reference: String, expected: String) {
    #expect(URLReference.resolve(reference, against: Self.base)?.absoluteString == expected)
  }

  @Test("the abnormal examples of RFC 3986 §5.4.2", arguments: abnormal)
  func abnormalExamples(reference: String, expected: String) {
    #expect(URLReference.resolve(reference, against: Self.base)?.absoluteString == expected)
  }

  @Test("ASCII white space around a reference is ignored; an empty one resolves to nothing")
  func whiteSpace() {
    #expect(URLReference.resolve(" \t\n../g\r\n ", against: Self.base)?.absoluteString == "http://a/b/g")
    #expect(URLReference.resolve(" \u{0C}", against: Self.base) == nil)
    #expect(URLReference.trimmingWhitespace("\u{A0}x ") == "\u{A0}x")  // no-break space is not ASCII white space
  }

  @Test("a Unicode host is encoded as IDNA (punycode), its path and userinfo percent-encoded")
  func unicodeHost() {
    // An OPML file's `xmlUrl`, a feed's link, a page's `href`: DNS resolves the IDNA form, not `b%C3%BCcher`.
    #expect(
      URLReference.resolve("http://bücher.example/feed", against: nil)?.absoluteString
        == "http://xn--bcher-kva.example/feed")
    #expect(
      URLReference.resolve("https://пример.рф/новости?q=ü", against: nil)?.absoluteString
        == "https://xn--e1afmkfd.xn--p1ai/%D0%BD%D0%BE%D0%B2%D0%BE%D1%81%D1%82%D0%B8?q=%C3%BC")
    #expect(
      URLReference.resolve("feed://bücher.example:8080/rss", against: nil)?.absoluteString
        == "http://xn--bcher-kva.example:8080/rss")
    #expect(
      URLReference.resolve("//bücher.example/a b", against: Self.base)?.absoluteString
        == "http://xn--bcher-kva.example/a%20b")
    #expect(
      URLReference.resolve("http://jürgen@bücher.example/", against: nil)?.absoluteString
        == "http://j%C3%BCrgen@xn--bcher-kva.example/")
    #expect(URLReference.asciiForm("http://bücher.example/ü x") == "http://xn--bcher-kva.example/%C3%BC%20x")
    #expect(URLReference.asciiForm("http://a.example/ü") == "http://a.example/%C3%BC")
    // A host in ASCII keeps its path's Unicode percent-encoded, as before.
    #expect(
      URLReference.resolve("ü/x", against: URL(string: "http://bücher.example/a/"))?.absoluteString
        == "http://xn--bcher-kva.example/a/%C3%BC/x")
  }

  @Test("characters URIs never hold are percent-encoded as UTF-8, or refused without escaping")
  func escaping() {
    // `%` stays; `[` `]` are gen-delims RFC 3986 allows only in a host, and Foundation encodes them in a query.
    let base = URL(string: "https://example.com/news/")
    #expect(
      URLReference.resolve("a b/ü|\"x\".png", against: base)?.absoluteString
        == "https://example.com/news/a%20b/%C3%BC%7C%22x%22.png")
    #expect(
      URLReference.resolve("a%20b?x=1&y=[2]", against: base)?.absoluteString
        == "https://example.com/news/a%20b?x=1&y=%5B2%5D")
    #expect(URLReference.resolve("a b", against: base, escaping: false) == nil)
  }

  @Test("an absolute reference is itself; a relative one needs a base")
  func absoluteAndRelative() {
    #expect(URLReference.resolve("HTTPS://Example.com/x", against: nil)?.absoluteString == "HTTPS://Example.com/x")
    #expect(URLReference.resolve("mailto:a@example.com", against: Self.base)?.absoluteString == "mailto:a@example.com")
    #expect(URLReference.resolve("g", against: nil) == nil)
    #expect(URLReference.hasScheme("a+b-c.d:x"))
    #expect(!URLReference.hasScheme("1a:x") && !URLReference.hasScheme("/a:b") && !URLReference.hasScheme("abc"))
  }
}
