import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An edit of the configuration file that changes only the sources it adds or removes: every other byte — the other
/// keys, their order, unknown keys, white space and layout — stays as written. The file is the store of sources
/// (`news add`, `news remove`, `news import FILE.opml`).
///
/// For example:
/// ```swift
/// var edit = try ConfigurationEdit(path: configuration.file ?? Configuration.userConfigurationPath(environment))
/// edit.addSource(named: "Daring Fireball", fields: [("feed", .string("https://daringfireball.net/feeds/main"))])
/// try edit.save()   // written to a temporary file, checked as news reads it, then renamed over the old one
/// ```
///
/// Edits are textual: a new source is inserted after the last one, indented like its siblings; a removed one is cut
/// out with its comma. A file that is missing starts as `{"sources": {}}`.
struct ConfigurationEdit {
  /// A value of a new source's field.
  enum FieldValue {
    case string(String)
  }

  /// The file edited (symbolic links resolved: the link stays, its target is rewritten).
  let path: String
  private(set) var text: [UInt8]
  /// Whether the file existed when the edit began.
  let existed: Bool

  /// Reads the file at `path` (or starts an empty configuration when there is none).
  ///
  /// - Throws: `CommandFailure` (78) when the file cannot be read or is not a JSON object.
  init(path: String) throws(CommandFailure) {
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    self.path = resolved
    if FileManager.default.fileExists(atPath: resolved) {
      text = Array(try Configuration.contents(path: resolved))
      existed = true
    } else {
      text = Array("{\n  \"sources\": {}\n}\n".utf8)
      existed = false
    }
    _ = try outline()
  }

  /// The names of the sources, in the order the file lists them.
  func sourceNames() throws(CommandFailure) -> [String] {
    let outline = try outline()
    guard let sources = JSONOutline.member("sources", of: outline.root)?.value.members else { return [] }
    var seen = Set<String>()
    return sources.map(\.key).filter { seen.insert($0).inserted }
  }

  /// Adds a source `"name": {fields…}` at the end of `sources` (creating `sources` when the file has none). The
  /// caller makes sure the name is new.
  mutating func addSource(named name: String, fields: [(String, FieldValue)]) throws(CommandFailure) {
    let outline = try outline()
    let entry =
      "{ "
      + fields.map { key, value in
        switch value {
        case .string(let text): return Self.literal(key) + ": " + Self.literal(text)
        }
      }.joined(separator: ", ") + " }"
    if let sources = JSONOutline.member("sources", of: outline.root) {
      insertMember(Self.literal(name) + ": " + entry, into: sources.value)
    } else {
      let indent = indentation(of: outline.root.members ?? [], fallback: "  ", closing: outline.root.end)
      insertMember(
        Self.literal("sources") + ": {\n" + indent + "  " + Self.literal(name) + ": " + entry + "\n" + indent + "}",
        into: outline.root)
    }
  }

  /// Sets the value of `key` in the source `name` (its last entry of that name, as the reader keeps) to the string
  /// `value`, replacing the old value's text only: every other byte stays. `false` when there is no such source or
  /// key.
  mutating func setField(_ key: String, ofSource name: String, to value: String) throws(CommandFailure) -> Bool {
    guard
      let source = JSONOutline.member("sources", of: try outline().root)?.value.members?.last(where: { $0.key == name }
      ),
      let field = JSONOutline.member(key, of: source.value)
    else { return false }
    text.replaceSubrange(field.value.start..<field.value.end, with: Array(Self.literal(value).utf8))
    return true
  }

  /// Sets the top-level member `key` to `json` (a JSON value's text): its old value's text replaced (its last
  /// entry, as the reader keeps), or a new last member; every other byte stays.
  mutating func setTopLevel(_ key: String, json: String) throws(CommandFailure) {
    let root = try outline().root
    if let member = root.members?.last(where: { $0.key == key }) {
      text.replaceSubrange(member.value.start..<member.value.end, with: Array(json.utf8))
    } else {
      insertMember(Self.literal(key) + ": " + json, into: root)
    }
  }

  /// Removes every member of `sources` named `name`; `false` when there was none.
  mutating func removeSource(named name: String) throws(CommandFailure) -> Bool {
    var removed = false
    while let sources = JSONOutline.member("sources", of: try outline().root)?.value,
      let members = sources.members, let index = members.lastIndex(where: { $0.key == name })
    {
      let range: Range<Int>
      if members.count == 1 {
        range = (sources.start + 1)..<(sources.end - 1)  // `{ … }` → `{}`
      } else if index + 1 < members.count {
        range = members[index].keyStart..<members[index + 1].keyStart  // the member, its comma, the next indent
      } else {
        range = members[index - 1].value.end..<members[index].value.end  // the comma before, the member
      }
      text.replaceSubrange(range, with: [])
      removed = true
    }
    return removed
  }

  /// Writes the edited text: to a temporary file beside the configuration (with its permissions), checked by
  /// ``Configuration/read(path:)`` — an edit never leaves a file `news` cannot read — then renamed over it
  /// (`rename(2)` is atomic: a reader sees the old file or the new one, never half of one).
  ///
  /// - Throws: `CommandFailure` (78) when the folder cannot be written or the result would not be a valid
  ///   configuration (nothing is changed then).
  func save() throws(CommandFailure) {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw CommandFailure(.config, "cannot create the folder \(folder.path) for the configuration file")
    }
    let temporary = folder.appendingPathComponent(
      ".\(URL(fileURLWithPath: path).lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    ).path
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text)) else {
      throw CommandFailure(.config, "cannot write the configuration file \(path) (its folder is not writable)")
    }
    var renamed = false
    defer { if !renamed { unlink(temporary) } }
    if existed, let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber {
      chmod(temporary, mode_t(mode.uint16Value))
    }
    do {
      _ = try Configuration.read(path: temporary)
    } catch {
      throw CommandFailure(
        .config, "the edited configuration would not be valid, so \(path) is unchanged: \(error.message)")
    }
    guard rename(temporary, path) == 0 else {
      throw CommandFailure(.config, "cannot replace \(path): \(String(cString: strerror(errno)))")
    }
    renamed = true
  }

  // MARK: Internals

  private func outline() throws(CommandFailure) -> JSONOutline {
    let outline: JSONOutline
    do {
      outline = try JSONOutline(text)
    } catch {
      // The message every reader of the configuration gives: where the text stops being JSON, by line and column.
      _ = try Configuration.jsonObject(Data(text), path: path)
      throw CommandFailure(.config, "\(path): not valid JSON (at byte \(error.offset): \(error.reason))")
    }
    guard outline.root.members != nil else {
      throw CommandFailure(.config, "\(path): the top level must be a JSON object")
    }
    if let sources = JSONOutline.member("sources", of: outline.root), sources.value.members == nil {
      throw CommandFailure(.config, "\(path): \"sources\" must be an object of named sources")
    }
    return outline
  }

  /// Inserts `member` (`"key": value`) as the last member of `object`, indented like the members before it.
  private mutating func insertMember(_ member: String, into object: JSONOutline.Value) {
    let members = object.members ?? []
    let beforeBrace = lineIndentation(before: object.end - 1)
    let braceOnItsOwnLine =
      object.end - 1 - beforeBrace.utf8.count > 0
      && text[object.end - 2 - beforeBrace.utf8.count] == 0x0A
    let closingIndent = braceOnItsOwnLine ? beforeBrace : leadingWhitespace(ofLineAt: object.start)
    let indent = indentation(of: members, fallback: closingIndent + "  ", closing: object.end)
    if let last = members.last {
      text.insert(contentsOf: Array(("," + "\n" + indent + member).utf8), at: last.value.end)
    } else {
      // `{}` or `{ … white space … }`: the member on its own line, the brace on the next.
      text.replaceSubrange(
        (object.start + 1)..<(object.end - 1), with: Array(("\n" + indent + member + "\n" + closingIndent).utf8))
    }
  }

  /// The white space before the first member's key on its line; `fallback` when the members share a line with the
  /// brace (or there are none).
  private func indentation(of members: [JSONOutline.Member], fallback: String, closing: Int) -> String {
    guard let first = members.first else { return fallback }
    let indent = lineIndentation(before: first.keyStart)
    let lineStart = first.keyStart - indent.utf8.count
    guard lineStart > 0, text[lineStart - 1] == 0x0A else { return fallback }
    return indent
  }

  /// The spaces and tabs that start the line `offset` is on.
  private func leadingWhitespace(ofLineAt offset: Int) -> String {
    var start = offset
    while start > 0, text[start - 1] != 0x0A { start -= 1 }
    var end = start
    while end < offset, text[end] == 0x20 || text[end] == 0x09 { end += 1 }
    return String(decoding: text[start..<end], as: UTF8.self)
  }

  /// The spaces and tabs just before `offset` on its line.
  private func lineIndentation(before offset: Int) -> String {
    var start = offset
    while start > 0, text[start - 1] == 0x20 || text[start - 1] == 0x09 { start -= 1 }
    return String(decoding: text[start..<offset], as: UTF8.self)
  }

  /// A JSON string literal for `text` (escaped as RFC 8259 requires, `/` left alone).
  static func literal(_ text: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    guard let data = try? encoder.encode(text) else { return "\"\"" }
    return String(decoding: data, as: UTF8.self)
  }
}
