import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An edit of a hand-written JSON file — a subscription file (``SubscriptionFile``), the `news` configuration — that
/// changes only what it is asked to: every other byte (the other keys, their order, unknown keys, white space and
/// layout) stays as written.
///
/// For example:
/// ```swift
/// var edit = try JSONFileEdit(path: "~/.config/news/news.json")
/// try edit.addSource(named: "Daring Fireball", fields: [("feed", .string("https://daringfireball.net/feeds/main"))])
/// try edit.save { path in _ = try SubscriptionFile.read(path: path) }  // checked, then renamed over the old file
/// ```
///
/// Edits are textual, on the file's ``JSONOutline``: a new source is inserted after the last one, indented like its
/// siblings; a removed one is cut out with its comma. A file that is missing starts as `{"sources": {}}`.
package struct JSONFileEdit {
  /// A value of a source's field.
  package enum FieldValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case number(Double)

    /// The value as JSON text.
    var json: String {
      switch self {
      case .string(let text): JSONFileEdit.literal(text)
      case .bool(let flag): flag ? "true" : "false"
      case .number(let number):
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
      }
    }
  }

  /// The file edited (symbolic links resolved: the link stays, its target is rewritten).
  package let path: String
  package private(set) var text: [UInt8]
  /// Whether the file existed when the edit began.
  package let existed: Bool

  /// Reads the file at `path` (or starts an empty list of sources when there is none).
  ///
  /// - Throws: ``SubscriptionFileError`` when the file cannot be read or is not a JSON object.
  package init(path: String) throws(SubscriptionFileError) {
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    self.path = resolved
    if FileManager.default.fileExists(atPath: resolved) {
      text = Array(try SubscriptionFile.contents(path: resolved))
      existed = true
    } else {
      text = Array("{\n  \"sources\": {}\n}\n".utf8)
      existed = false
    }
    _ = try outline()
  }

  /// The names of the sources, in the order the file lists them.
  package func sourceNames() throws(SubscriptionFileError) -> [String] {
    let outline = try outline()
    guard let sources = JSONOutline.member("sources", of: outline.root)?.value.members else { return [] }
    var seen = Set<String>()
    return sources.map(\.key).filter { seen.insert($0).inserted }
  }

  /// Adds a source `"name": {fields…}` at the end of `sources` (creating `sources` when the file has none). The
  /// caller makes sure the name is new.
  package mutating func addSource(named name: String, fields: [(String, FieldValue)]) throws(SubscriptionFileError) {
    try addSources([(name, fields)])
  }

  /// Adds the sources `"name": {fields…}`, in order, at the end of `sources` (creating `sources` when the file has
  /// none), in one insertion: the file is read once however many there are (an OPML list of 5,000 feeds took 22
  /// minutes when each was added by itself). The caller makes sure the names are new.
  package mutating func addSources(_ sources: [(name: String, fields: [(String, FieldValue)])])
    throws(SubscriptionFileError)
  {
    guard !sources.isEmpty else { return }
    let outline = try outline()
    let members = sources.map { name, fields in
      Self.literal(name) + ": { " + fields.map { Self.literal($0.0) + ": " + $0.1.json }.joined(separator: ", ") + " }"
    }
    if let existing = JSONOutline.member("sources", of: outline.root) {
      insertMembers(members, into: existing.value)
    } else {
      let lineBreak = lineBreak
      let indent = indentation(of: outline.root.members ?? [], fallback: "  ", closing: outline.root.end)
      let inner = members.map { lineBreak + indent + "  " + $0 }.joined(separator: ",")
      insertMembers([Self.literal("sources") + ": {" + inner + lineBreak + indent + "}"], into: outline.root)
    }
  }

  @discardableResult
  package mutating func setField(_ key: String, ofSource name: String, to value: FieldValue?)
    throws(SubscriptionFileError) -> Bool
  {
    guard
      let source = JSONOutline.member("sources", of: try outline().root)?.value.members?.last(where: { $0.key == name }
      )
    else { return false }
    guard let value else {
      removeMembers(named: key) { outline in
        JSONOutline.member("sources", of: outline.root)?.value.members?.last { member in member.key == name }?.value
      }
      return true
    }
    if let field = JSONOutline.member(key, of: source.value) {
      text.replaceSubrange(field.value.start..<field.value.end, with: Array(value.json.utf8))
    } else {
      insertMember(Self.literal(key) + ": " + value.json, into: source.value)
    }
    return true
  }

  /// Renames the source `name` (its every entry of that name) to `newName`: the key's text replaced, nothing else.
  /// `false` when there is no such source.
  @discardableResult
  package mutating func renameSource(_ name: String, to newName: String) throws(SubscriptionFileError) -> Bool {
    guard let members = JSONOutline.member("sources", of: try outline().root)?.value.members else { return false }
    let keys = members.filter { $0.key == name }
    // From the last to the first, so that the earlier offsets stay right.
    for member in keys.reversed() {
      let end = keyEnd(from: member.keyStart)
      text.replaceSubrange(member.keyStart..<end, with: Array(Self.literal(newName).utf8))
    }
    return !keys.isEmpty
  }

  /// The string value of the top-level member `key` (its last entry), or `nil` when it is absent or not a string.
  package func topLevelString(_ key: String) throws(SubscriptionFileError) -> String? {
    guard let member = try outline().root.members?.last(where: { $0.key == key }) else { return nil }
    let literal = Array(text[member.value.start..<member.value.end])
    return (try? JSONSerialization.jsonObject(with: Data(literal), options: [.fragmentsAllowed])) as? String
  }

  /// Sets the top-level member `key` to `json` (a JSON value's text): its old value's text replaced (its last
  /// entry, as the reader keeps), or a new last member; every other byte stays.
  package mutating func setTopLevel(_ key: String, json: String) throws(SubscriptionFileError) {
    let root = try outline().root
    if let member = root.members?.last(where: { $0.key == key }) {
      text.replaceSubrange(member.value.start..<member.value.end, with: Array(json.utf8))
    } else {
      insertMember(Self.literal(key) + ": " + json, into: root)
    }
  }

  /// Removes every member of `sources` named `name`; `false` when there was none.
  @discardableResult
  package mutating func removeSource(named name: String) throws(SubscriptionFileError) -> Bool {
    let outline = try outline()
    guard JSONOutline.member("sources", of: outline.root)?.value.members?.contains(where: { $0.key == name }) == true
    else { return false }
    removeMembers(named: name, of: { JSONOutline.member("sources", of: $0.root)?.value })
    return true
  }

  /// Writes the edited text: to a temporary file beside the old one (with its permissions), checked by `check` (which
  /// reads it as its program does: an edit never leaves a file that cannot be read), then renamed over it
  /// (`rename(2)` is atomic: a reader sees the old file or the new one, never half of one).
  ///
  /// - Throws: ``SubscriptionFileError/Kind/unwritable`` when the folder cannot be written or `check` throws
  ///   (nothing is changed then).
  package func save(check: (String) throws -> Void) throws(SubscriptionFileError) {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw SubscriptionFileError(.unwritable, path: path, "cannot create the folder \(folder.path) for \(path)")
    }
    let temporary = folder.appendingPathComponent(
      ".\(URL(fileURLWithPath: path).lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    ).path
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text)) else {
      throw SubscriptionFileError(.unwritable, path: path, "cannot write \(path) (its folder is not writable)")
    }
    var renamed = false
    defer { if !renamed { unlink(temporary) } }
    if existed, let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber {
      chmod(temporary, mode_t(mode.uint16Value))
    }
    do {
      try check(temporary)
    } catch {
      let reason = (error as? SubscriptionFileError)?.message ?? "\(error)"
      throw SubscriptionFileError(
        .unwritable, path: path, "the edited file would not be valid, so \(path) is unchanged: \(reason)")
    }
    guard rename(temporary, path) == 0 else {
      throw SubscriptionFileError(
        .unwritable, path: path, "cannot replace \(path): \(String(cString: strerror(errno)))")
    }
    renamed = true
  }

  // MARK: Internals

  private func outline() throws(SubscriptionFileError) -> JSONOutline {
    let outline: JSONOutline
    do {
      outline = try JSONOutline(text)
    } catch {
      // The message every reader of the file gives: where the text stops being JSON, by line and column.
      _ = try SubscriptionFile.jsonValue(Data(text), path: path)
      throw SubscriptionFileError(
        .invalidJSON, path: path, "\(path): not valid JSON (at byte \(error.offset): \(error.reason))")
    }
    guard outline.root.members != nil else {
      throw SubscriptionFileError(.invalidJSON, path: path, "\(path): the top level must be a JSON object")
    }
    if let sources = JSONOutline.member("sources", of: outline.root), sources.value.members == nil {
      throw SubscriptionFileError(
        .invalidValue, path: path, "\(path): \"sources\" must be an object of named sources")
    }
    return outline
  }

  /// Removes every member named `key` of the object `object` finds in the current outline (looked up again after
  /// each cut, since the offsets move), with its comma.
  private mutating func removeMembers(named key: String, of object: (JSONOutline) -> JSONOutline.Value?) {
    while let outline = try? JSONOutline(text), let value = object(outline), let members = value.members,
      let index = members.lastIndex(where: { $0.key == key })
    {
      let range: Range<Int>
      if members.count == 1 {
        range = (value.start + 1)..<(value.end - 1)  // `{ … }` → `{}`
      } else if index + 1 < members.count {
        range = members[index].keyStart..<members[index + 1].keyStart  // the member, its comma, the next indent
      } else {
        range = members[index - 1].value.end..<members[index].value.end  // the comma before, the member
      }
      text.replaceSubrange(range, with: [])
    }
  }

  /// The offset just after the string literal that starts at `start` (its closing quote).
  private func keyEnd(from start: Int) -> Int {
    var index = start + 1
    while index < text.count, text[index] != 0x22 {
      index += text[index] == 0x5C ? 2 : 1
    }
    return min(index + 1, text.count)
  }

  /// The file's line break: `\r\n` when it has any (a file written on Windows keeps its line endings), else `\n`.
  private var lineBreak: String {
    // The file's first line break tells (a file mixes them rarely; this reads to the first one, not the whole file).
    guard let newline = text.firstIndex(of: 0x0A) else { return "\n" }
    return newline > 0 && text[newline - 1] == 0x0D ? "\r\n" : "\n"
  }

  /// Inserts `member` (`"key": value`) as the last member of `object`, indented like the members before it.
  private mutating func insertMember(_ member: String, into object: JSONOutline.Value) {
    insertMembers([member], into: object)
  }

  /// Inserts `members` (each `"key": value`), in order, as the last members of `object`, indented like the members
  /// before them, in one insertion.
  private mutating func insertMembers(_ added: [String], into object: JSONOutline.Value) {
    guard !added.isEmpty else { return }
    let lineBreak = lineBreak
    let members = object.members ?? []
    let beforeBrace = lineIndentation(before: object.end - 1)
    let braceOnItsOwnLine =
      object.end - 1 - beforeBrace.utf8.count > 0
      && text[object.end - 2 - beforeBrace.utf8.count] == 0x0A
    let closingIndent = braceOnItsOwnLine ? beforeBrace : leadingWhitespace(ofLineAt: object.start)
    let indent = indentation(of: members, fallback: closingIndent + "  ", closing: object.end)
    if let last = members.last, !text[object.start..<last.value.end].contains(0x0A) {
      // An object written on one line (`{"url": …, "query": {…}}`) gets the members on that line too.
      text.insert(contentsOf: Array(added.map { ", " + $0 }.joined().utf8), at: last.value.end)
    } else if let last = members.last {
      text.insert(contentsOf: Array(added.map { "," + lineBreak + indent + $0 }.joined().utf8), at: last.value.end)
    } else {
      // `{}` or `{ … white space … }`: the members on their own lines, the brace on the next.
      let inner = added.map { lineBreak + indent + $0 }.joined(separator: ",")
      text.replaceSubrange(
        (object.start + 1)..<(object.end - 1), with: Array((inner + lineBreak + closingIndent).utf8))
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
  package static func literal(_ text: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    guard let data = try? encoder.encode(text) else { return "\"\"" }
    return String(decoding: data, as: UTF8.self)
  }
}
