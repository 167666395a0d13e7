import Foundation
import OfflineNewsHTML
import Testing

/// Each rule of `HTMLTextRenderer`, on HTML written for the test.
struct HTMLTextRendererTests {
  let renderer = HTMLTextRenderer()

  @Test("paragraphs are apart by a blank line; <br> breaks a line; the output ends with one newline")
  func paragraphs() {
    let text = renderer.render(html: "<p>First  paragraph\n spans lines.</p><p>Second<br>line two</p>")
    #expect(text == "First paragraph spans lines.\n\nSecond\nline two\n")
  }

  @Test(
    "superscripts and subscripts stay readable: Unicode's forms where it has them, else ^ and _",
    arguments: [
      ("2<sup>4</sup> = 16", "2⁴ = 16"), ("00<sub>2</sub>", "00₂"), ("E = mc<sup>2</sup>", "E = mc²"),
      ("H<sub>2</sub>O", "H₂O"), ("2<sup>10</sup>", "2¹⁰"), ("x<sup>n+1</sup>", "xⁿ⁺¹"), ("e<sup>−(i)</sup>", "e⁻⁽ⁱ⁾"),
      ("2<sup>x</sup>", "2^x"), ("x<sub>ab</sub>", "x_ab"), ("a<sup>k = 2</sup>", "a^(k = 2)"),
      ("Word<sup><a href=\"#fn1\">[1]</a></sup> more", "Word[1] more"), ("a<sup></sup>b", "ab"),
      ("<pre>x<sup>2</sup></pre>", "    x2"),
    ])
  func scripts(_ html: String, _ expected: String) {
    #expect(renderer.render(html: html) == expected + "\n")
    #expect(HTMLTextRenderer.text(of: html) == expected.trimmingCharacters(in: .whitespaces) + "\n")
  }

  @Test("text outside any element, and divs, are blocks too")
  func looseText() {
    #expect(renderer.render(html: "Hello <b>bold</b> world<div>Next</div>") == "Hello bold world\n\nNext\n")
  }

  @Test("headings get # marks by level on a line of their own")
  func headings() {
    let text = renderer.render(html: "<h1>Title</h1><p>Body</p><h3>Part <i>three</i></h3>")
    #expect(text == "# Title\n\nBody\n\n### Part three\n")
  }

  @Test("unordered lists get bullets, nested lists other bullets, indented under the text")
  func bulletLists() {
    let html = "<ul><li>one</li><li>two<ul><li>inner</li><li>deeper<ul><li>third level</li></ul></li></ul></li></ul>"
    #expect(renderer.render(html: html) == "• one\n• two\n  ◦ inner\n  ◦ deeper\n    ▪ third level\n")
  }

  @Test("ordered lists are numbered from their start, an item's value resets the count")
  func numberedLists() {
    #expect(renderer.render(html: "<ol><li>a</li><li>b</li></ol>") == "1. a\n2. b\n")
    #expect(
      renderer.render(html: "<ol start=\"9\"><li>a</li><li>b</li><li value=\"20\">c</li><li>d</li></ol>")
        == "9. a\n10. b\n20. c\n21. d\n")
  }

  @Test("a list item's wrapped lines and later paragraphs stay under its text")
  func itemContinuation() {
    let text = HTMLTextRenderer(width: 20).render(
      html: "<p>Intro</p><ul><li><p>a long item that wraps around</p><p>second</p></li><li>next</li></ul>")
    #expect(text == "Intro\n\n• a long item that\n  wraps around\n\n  second\n• next\n")
  }

  @Test("block quotes are indented by four columns, nested ones by eight")
  func quotes() {
    let text = renderer.render(html: "<p>He said:</p><blockquote><p>Yes.</p><blockquote>No.</blockquote></blockquote>")
    #expect(text == "He said:\n\n    Yes.\n\n        No.\n")
  }

  @Test("<pre> keeps its spaces and lines (tabs to 8-column stops), indented; a line too long is cut")
  func preformatted() {
    let html = "<p>Code:</p><pre>func f() {\n\treturn  1   // a longer comment\n}</pre>"
    #expect(
      HTMLTextRenderer().render(html: html)
        == "Code:\n\n    func f() {\n            return  1   // a longer comment\n    }\n")
    #expect(
      HTMLTextRenderer(width: 30).render(html: html)
        == "Code:\n\n    func f() {\n            return  1   // a l\n    onger comment\n    }\n")
  }

  @Test("links become numbered references, listed at the end; one URL keeps one number")
  func links() {
    let html = """
      <p>See <a href="/a">this</a>, <a href="https://other.example/b?x=1&amp;y=2">that</a> and \
      <a href="/a">this again</a>; <a href="#top">top</a>, <a href="javascript:go()">go</a>.</p>
      """
    let text = renderer.render(html: html, baseURL: URL(string: "https://news.example/2024/story.html"))
    #expect(
      text == """
        See this[1], that[2] and this again[1]; top, go.

        [1] https://news.example/a
        [2] https://other.example/b?x=1&y=2

        """)
  }

  @Test("a URL longer than the line stays on one line, unindented, so it can be copied; URLs are shown escaped")
  func longURLs() {
    let long = String(repeating: "x", count: 30)
    let html = "<a href=\"https://example.com/a path/\(long)\">x</a> and <a href=\"https://e.x/\">y</a>"
    let text = HTMLTextRenderer(width: 30).render(html: html)
    #expect(text == "x[1] and y[2]\n\n[1] https://example.com/a%20path/\(long)\n[2] https://e.x/\n")
    #expect(
      text.split(separator: "\n").filter { TerminalColumns.width(of: $0) > 30 }.allSatisfy {
        HTMLTextRenderer.isLinkReference($0)
      })
  }

  @Test("a <base href> is what links resolve against")
  func baseElement() {
    let html = "<head><base href=\"https://cdn.example/root/\"></head><body><a href=\"x.html\">x</a></body>"
    #expect(renderer.render(html: html) == "x[1]\n\n[1] https://cdn.example/root/x.html\n")
  }

  @Test("images become [image: alt], or [image] without alt text")
  func images() {
    let text = renderer.render(html: "<p>A <img src=\"a.jpg\" alt=\" a  cat \"> and <img src=\"b.jpg\"></p>")
    #expect(text == "A [image: a cat] and [image]\n")
  }

  @Test("character references are decoded exactly once")
  func entities() {
    #expect(renderer.render(html: "India&#039;s rise") == "India's rise\n")
    #expect(renderer.render(html: "AT&amp;amp;T &lt;b&gt; &eacute; &#x1F600; &nbsp;x") == "AT&amp;T <b> é 😀 \u{A0}x\n")
  }

  @Test("scripts, styles, templates, form controls and hidden elements are dropped")
  func dropped() {
    let html = """
      <style>p { color: red }</style><script>alert("x")</script><p>Kept</p><template><p>t</p></template>
      <p hidden>hidden</p><p aria-hidden="true">aria</p><p style="display: none">none</p>
      <p style="visibility:hidden">invisible</p><noscript>enable JS</noscript><button>Click</button>
      <input value="typed"><svg><text>drawn</text></svg><p>Also kept</p>
      """
    #expect(renderer.render(html: html) == "Kept\n\nAlso kept\n")
  }

  @Test("control characters (escape sequences) are dropped, other text is kept")
  func controls() {
    let text = renderer.render(html: "<p>red\u{1B}[31m text\u{07}\u{9B}2J done</p>")
    #expect(text == "red[31m text2J done\n")
    #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
  }

  @Test("tables give a line per row, cells apart by |; a rule for <hr>")
  func tablesAndRules() {
    let html = "<table><tr><th>Team</th><th>Score</th></tr><tr><td>A</td><td>1</td></tr></table><hr><p>After</p>"
    #expect(
      renderer.render(html: html) == "Team | Score\nA | 1\n\n" + String(repeating: "─", count: 40) + "\n\nAfter\n")
  }

  @Test("definition lists: terms on their line, descriptions indented")
  func definitions() {
    #expect(
      renderer.render(html: "<dl><dt>RSS</dt><dd>Really Simple Syndication</dd></dl>")
        == "RSS\n    Really Simple Syndication\n")
  }

  @Test("wrapping keeps every line within the width and breaks at spaces")
  func wrapping() {
    let words = (1...40).map { "word\($0)" }.joined(separator: " ")
    let text = HTMLTextRenderer(width: 24).render(html: "<p>\(words)</p>")
    let lines = text.split(separator: "\n")
    #expect(lines.allSatisfy { TerminalColumns.width(of: $0) <= 24 })
    #expect(lines.joined(separator: " ") == words)
    #expect(lines.first == "word1 word2 word3 word4")
  }

  @Test("wide characters count two columns; CJK text breaks between characters")
  func wideCharacters() {
    let text = HTMLTextRenderer(width: 10).render(html: "<p>日本語のテキストです。</p>")
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines == ["日本語のテ", "キストです", "。"])
    #expect(lines.allSatisfy { TerminalColumns.width(of: $0) <= 10 })
  }

  @Test("a word wider than the line is cut between characters, never inside one")
  func longWords() {
    let word = String(repeating: "e\u{301}", count: 12) + "👍🏽👍🏽"  // é as e + combining acute; emoji with skin tone
    let text = HTMLTextRenderer(width: 5).render(html: "<p>\(word)</p>")
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.allSatisfy { TerminalColumns.width(of: $0) <= 5 })
    #expect(lines.joined() == word)
    #expect(lines.joined().count == word.count)
  }

  @Test("no-break spaces do not break a line")
  func noBreakSpaces() {
    let text = HTMLTextRenderer(width: 8).render(html: "<p>aaaa 10&nbsp;km bbbb</p>")
    #expect(text == "aaaa\n10\u{A0}km\nbbbb\n")
  }

  @Test("plain text: no references, no image marks, no heading marks or indentation, nothing wrapped")
  func plainText() {
    let html = """
      <h2>Head</h2><p>A <a href="/x">link</a> <img alt="pic"> here</p><blockquote>quoted</blockquote>
      <ul><li>item</li></ul><table><tr><td>a</td><td>b</td></tr></table>
      """
    #expect(HTMLTextRenderer.text(of: html) == "Head\n\nA link here\n\nquoted\n\n• item\n\na\tb\n")
  }

  @Test("empty and whitespace-only HTML give no text")
  func empty() {
    #expect(renderer.render(html: "") == "")
    #expect(renderer.render(html: "  \n <p> </p><div></div>") == "")
    #expect(HTMLTextRenderer.text(of: "") == "")
  }

  @Test("indentation takes at most half the width: the outermost levels are left out first")
  func indentationCap() {
    let html =
      String(repeating: "<blockquote>", count: 10) + "deep quote" + String(repeating: "</blockquote>", count: 10)
    let text = HTMLTextRenderer(width: 20).render(html: html)
    #expect(text == "        deep quote\n")
  }

  @Test("pieces rendered together share one list of references; an unclosed tag in one does not spill over")
  func fragments() {
    let text = HTMLTextRenderer().render(
      htmlFragments: ["A <a href=\"/a\">summary</a> <!-- unclosed", "The <a href=\"/b\">content</a>."],
      baseURL: URL(string: "https://news.example/story"))
    #expect(text == "A summary[1]\n\nThe content[2].\n\n[1] https://news.example/a\n[2] https://news.example/b\n")
  }

  @Test("an empty line inside a list item keeps no indentation")
  func noTrailingSpaces() {
    let text = HTMLTextRenderer(width: 30).render(html: "<ul><li>one<br><br>two</li></ul>")
    #expect(text == "• one\n\n  two\n")
  }
}
