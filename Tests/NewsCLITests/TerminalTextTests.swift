import Testing

@testable import NewsCLI

/// The rules of ``TerminalText`` one by one (the pty tests of `TerminalTests` check them through `news`).
@Suite("terminal text: bidi scopes, marks, invisible characters")
struct TerminalTextTests {
  static let cases: [(input: String, field: String, note: String)] = [
    ("plain", "plain", "unchanged"),
    ("a\u{202E}b", "a\u{202E}b\u{202C}", "an override is closed"),
    ("a\u{2067}b\u{202B}c", "a\u{2067}b\u{202B}c\u{202C}\u{2069}", "innermost first"),
    ("a\u{2067}b\u{202B}c\u{2069}d", "a\u{2067}b\u{202B}c\u{2069}d", "a PDI closes the embeddings inside its isolate"),
    ("a\u{202C}b\u{2069}c", "abc", "stray closers are dropped"),
    ("a\u{202A}b\u{2066}c\u{202C}d", "a\u{202A}b\u{2066}cd\u{2069}\u{202C}", "a PDF does not close across an isolate"),
    ("\u{200F}שלום\u{200F} עולם\u{200F}", "שלום\u{200F} עולם", "marks kept inside, dropped at the ends"),
    ("Bundes\u{AD}tag\u{200B}s\u{2060}x\u{FEFF}", "Bundestagsx", "invisible format characters dropped"),
    ("👨\u{200D}👩\u{200D}👧", "👨\u{200D}👩\u{200D}👧", "ZWJ inside an emoji sequence kept"),
    ("می\u{200C}خواهم", "می\u{200C}خواهم", "ZWNJ inside a word kept"),
    ("\u{200D}a \u{200C} b\u{200D}", "a  b", "joiners beside nothing joinable dropped"),
    ("\u{FE0F}x ❤\u{FE0F} \u{FE0F}", "x ❤\u{FE0F} ", "a variation selector alone is dropped"),
    (
      "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
      "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "a flag's tags kept"
    ),
    ("hi\u{E0041}\u{E0042}\u{E007F}", "hi", "tags elsewhere dropped"),
    ("\u{0600}١٢", "\u{0600}١٢", "a visible prepended concatenation mark kept"),
    ("a\u{1B}[31mb\nc\td", "a[31mb c d", "controls dropped, breaks and tabs become spaces"),
  ]

  @Test("fields", arguments: cases)
  func field(input: String, field: String, note: String) {
    let output = TerminalText.field(input)
    #expect(
      Array(output.unicodeScalars) == Array(field.unicodeScalars),
      "\(note): \(output.unicodeScalars.map { String($0.value, radix: 16) })")
  }

  @Test("collapsing whitespace keeps a space before a scope it does not belong to")
  func collapsing() {
    #expect(TerminalText.field("  a \n \u{2067}ב  ", collapsingWhitespace: true) == "a \u{2067}ב\u{2069}")
    #expect(TerminalText.field("\u{202E}\n", collapsingWhitespace: true) == "\u{202E}\u{202C}")
  }

  @Test("a message closes scopes at each double quote")
  func message() {
    #expect(TerminalText.message("no source \"\u{202E}x\" here") == "no source \"\u{202E}x\u{202C}\" here")
    #expect(TerminalText.message("value \"abc\u{200F}\" ok") == "value \"abc\" ok")
  }

  @Test("a clipped field keeps its scopes closed and its colour reset")
  func clip() {
    let field = TerminalText.field("\u{202E}abcdefghij")
    let clipped = OutputFormat.clip(field, 5)
    #expect(clipped == "\u{202E}abcd\u{202C}…")
    let colored = TextStyle(enabled: true).apply(.bold, "abcdefghij")
    #expect(OutputFormat.clip(colored, 5) == "\u{1B}[1mabcd…\u{1B}[0m")
    #expect(OutputFormat.displayWidth(colored) == 10)
  }
}
