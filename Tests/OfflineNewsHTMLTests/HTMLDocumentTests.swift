import Foundation
import OfflineNewsHTML
import Testing

/// The libxml2 wrapper: parsing, character encodings, traversal, attributes, text, changes and serialising.
struct HTMLDocumentTests {
  @Test("a page parses into head and body; names are lower case; text keeps its whitespace")
  func structure() throws {
    let document = HTMLDocument(html: "<HTML><Head><TITLE> A \n  page </TITLE></head><BODY><P>One <b>two</b></P>")
    #expect(document.root?.name == "html")
    #expect(document.head?.children.map(\.name) == ["title"])
    #expect(document.title == "A page")
    let paragraph = try #require(document.body?.children.first)
    #expect(paragraph.name == "p")
    #expect(paragraph.textContent == "One two")
    #expect(paragraph.childNodes.map(\.kind) == [.text, .element])
  }

  @Test("a fragment is put in a body, unclosed tags are closed")
  func fragments() {
    let document = HTMLDocument(html: "<p>one<p>two<ul><li>three")
    #expect(document.body?.children.map(\.name) == ["p", "p", "ul"])
    #expect(document.body?.descendants(named: "li").first?.textContent == "three")
  }

  @Test("attributes: read with references decoded, set literally, removed")
  func attributes() throws {
    let document = HTMLDocument(html: "<a href=\"/x?a=1&amp;b=2\" title=\"&quot;q&quot;\">x</a>")
    let link = try #require(document.body?.descendants(named: "a").first)
    #expect(link["href"] == "/x?a=1&b=2")
    #expect(link["title"] == "\"q\"")
    #expect(link["missing"] == nil)
    link.setAttribute("data-x", to: "a&amp;b <c>")
    #expect(link["data-x"] == "a&amp;b <c>")
    #expect(link.outerHTML == "<a href=\"/x?a=1&amp;b=2\" title='\"q\"' data-x=\"a&amp;amp;b &lt;c&gt;\">x</a>")
    link.removeAttribute("title")
    #expect(link.attributes.map(\.name) == ["href", "data-x"])
  }

  @Test("a removed node stays valid and can be put back; moving does not merge text nodes")
  func changes() throws {
    let document = HTMLDocument(html: "<div id=a><p>one</p>text<p>two</p></div><div id=b></div>")
    let divs = try #require(document.body?.children)
    let first = try #require(divs[0].children.first)
    first.remove()
    #expect(first.parent == nil)
    #expect(first.textContent == "one")
    divs[1].append(first)
    #expect(divs[1].innerHTML == "<p>one</p>")
    let text = try #require(divs[0].firstChild)
    divs[1].append(text)
    divs[1].append(document.createText(" more"))
    #expect(divs[1].childNodes.count == 3)
    #expect(divs[1].textContent == "onetext more")
    divs[0].rename(to: "section")
    #expect(document.body?.innerHTML == "<section id=\"a\"><p>two</p></section><div id=\"b\"><p>one</p>text more</div>")
  }

  @Test("a node cannot be moved into itself or its own descendants")
  func noCycles() throws {
    let document = HTMLDocument(html: "<div><p><b>x</b></p></div>")
    let div = try #require(document.body?.children.first)
    let bold = try #require(div.descendants(named: "b").first)
    bold.append(div)
    div.append(div)
    #expect(document.body?.innerHTML == "<div><p><b>x</b></p></div>")
  }

  @Test("replace puts the new node in the old one's place")
  func replace() throws {
    let document = HTMLDocument(html: "<p>a</p><p>b</p>")
    let first = try #require(document.body?.children.first)
    let heading = document.createElement("h2")
    heading.append(document.createText("A"))
    first.replace(with: heading)
    #expect(document.body?.innerHTML == "<h2>A</h2><p>b</p>")
    #expect(first.parent == nil)
  }

  @Test("the charset given (HTTP) wins; else a valid UTF-8 page is UTF-8; else the <meta> charset")
  func encodings() throws {
    let latin1 = Data("<html><head><meta charset=\"iso-8859-1\"></head><body>caf\u{E9}</body>".utf8).map { $0 }
    // "café" in ISO-8859-1: é is one byte, 0xE9.
    var bytes: [UInt8] = []
    var index = 0
    while index < latin1.count {
      if latin1[index] == 0xC3 && index + 1 < latin1.count && latin1[index + 1] == 0xA9 {
        bytes.append(0xE9)
        index += 2
      } else {
        bytes.append(latin1[index])
        index += 1
      }
    }
    #expect(try HTMLDocument(data: Data(bytes)).body?.textContent == "café")
    let utf8WithStaleMeta = Data("<meta charset=\"gb2312\"><p>新电脑</p>".utf8)
    #expect(try HTMLDocument(data: utf8WithStaleMeta).body?.textContent == "新电脑")
    let windows1252 = Data([0x3C, 0x70, 0x3E, 0x93, 0x71, 0x94, 0x3C, 0x2F, 0x70, 0x3E])  // <p>“q”</p>
    #expect(try HTMLDocument(data: windows1252, charset: "windows-1252").body?.textContent == "“q”")
    let shiftJIS = Data([0x3C, 0x70, 0x3E, 0x93, 0xFA, 0x96, 0x7B, 0x3C, 0x2F, 0x70, 0x3E])  // <p>日本</p>
    #expect(try HTMLDocument(data: shiftJIS, charset: "Shift_JIS").body?.textContent == "日本")
    #expect(try HTMLDocument(data: shiftJIS, charset: "no-such-charset").body != nil)
  }

  @Test("a UTF-8 byte order mark is not text")
  func byteOrderMark() throws {
    let document = try HTMLDocument(data: Data([0xEF, 0xBB, 0xBF] + Array("<p>x</p>".utf8)))
    #expect(document.body?.textContent == "x")
  }

  @Test("the base URL is the first <base href> resolved against the page URL, else the page URL")
  func baseURL() {
    let page = URL(string: "https://example.com/news/story.html")
    #expect(HTMLDocument(html: "<p>x</p>", url: page).baseURL == page)
    #expect(
      HTMLDocument(html: "<base href=\"/static/\"><p>x</p>", url: page).baseURL?.absoluteString
        == "https://example.com/static/")
    #expect(HTMLDocument(html: "<p>x</p>").baseURL == nil)
  }

  @Test("empty input and a lone byte order mark give an empty document")
  func emptyInput() throws {
    #expect(try HTMLDocument(data: Data()).root == nil)
    #expect(HTMLDocument(html: "").body == nil)
    #expect(try HTMLDocument(data: Data([0xEF, 0xBB, 0xBF])).body?.textContent ?? "" == "")
  }

  @Test("a second <html>, or content after </html>, is merged into the one root and its body")
  func oneRoot() throws {
    let document = HTMLDocument(
      html: "<html><body><p>first</p></body></html><html><body><noscript>n</noscript><p>more</p></body></html>")
    let root = try #require(document.root)
    #expect(root.children.map(\.name) == ["body"])
    #expect(document.body?.children.map(\.name) == ["p", "noscript", "p"])
    #expect(document.root?.parent?.children.count == 1)
    let article = ReadabilityExtractor().extract(
      from: HTMLDocument(
        html: "<body><p>\(String(repeating: "Words of a story, and more. ", count: 25))</p></body></html>"
          + "<html><body><noscript><p>enable scripts</p></noscript><font>tail text</font></body></html>"))
    #expect(article?.content.contains("noscript") == false)
    #expect(article?.content.contains("<font") == false)
  }
}
