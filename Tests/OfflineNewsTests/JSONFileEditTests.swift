import Foundation
import OfflineNews
import TestSupport
import Testing

/// The order-preserving edit of a subscription file (the `news` configuration), on texts laid out in every way a person writes JSON.
@Suite("JSONFileEdit: sources added, changed and removed, every other byte kept")
struct JSONFileEditTests {
  /// A temporary folder holding `news.json` with `text`, and the file's path.
  private func file(_ text: String) throws -> (folder: TemporaryDirectory, path: String) {
    let folder = TemporaryDirectory("config-edit")
    let path = folder.path("news.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return (folder, path)
  }

  private func text(_ edit: JSONFileEdit) -> String { String(decoding: edit.text, as: UTF8.self) }

  /// The check of an edited file: its sources read back as the library reads them.
  private static func readBack(_ path: String) throws { _ = try SubscriptionFile.read(path: path, environment: [:]) }

  @Test("strings holding braces, quotes, escapes and non-ASCII keys do not confuse the spans")
  func trickyStrings() throws {
    let original = #"""
      {"apiKey": "a}\"{,:[", "sources": {"ü \"q\"": {"feed": "https://a.example/{x}"}}, "database": "C:\\db"}
      """#
    let (folder, path) = try file(original)
    defer { _ = folder }
    var edit = try JSONFileEdit(path: path)
    #expect(try edit.sourceNames() == ["ü \"q\""])
    try edit.addSource(named: "new \"one\"", fields: [("feed", .string("https://b.example/?a=1&b=\"2\""))])
    let object = try JSONSerialization.jsonObject(with: Data(edit.text)) as? [String: Any]
    let sources = object?["sources"] as? [String: [String: String]]
    #expect(sources?["new \"one\""]?["feed"] == "https://b.example/?a=1&b=\"2\"")
    #expect(sources?["ü \"q\""]?["feed"] == "https://a.example/{x}")
    #expect(object?["apiKey"] as? String == "a}\"{,:[")
    #expect(try edit.removeSource(named: "ü \"q\""))
    #expect(try edit.sourceNames() == ["new \"one\""])
    #expect(text(edit).hasPrefix(#"{"apiKey": "a}\"{,:[", "sources": {"#))
    #expect(text(edit).hasSuffix(#"}, "database": "C:\\db"}"#))
  }

  @Test("a file without sources gets them as its last key, indented like the others")
  func noSources() throws {
    let (folder, path) = try file("{\n\t\"timeoutSeconds\": 3\n}\n")
    defer { _ = folder }
    var edit = try JSONFileEdit(path: path)
    try edit.addSource(named: "a", fields: [("feed", .string("https://a.example/"))])
    #expect(
      text(edit)
        == "{\n\t\"timeoutSeconds\": 3,\n\t\"sources\": {\n\t  \"a\": { \"feed\": \"https://a.example/\" }\n\t}\n}\n")
    let (other, otherPath) = try file("{}")
    defer { _ = other }
    var empty = try JSONFileEdit(path: otherPath)
    try empty.addSource(named: "a", fields: [("feed", .string("https://a.example/"))])
    #expect(try JSONSerialization.jsonObject(with: Data(empty.text)) is [String: Any])
    #expect(try empty.sourceNames() == ["a"])
  }

  @Test("a repeated name is removed everywhere; removing the first, a middle and the last member keeps commas right")
  func removals() throws {
    let original = """
      {
        "sources": {
          "a": { "feed": "https://a.example/" },
          "b": { "feed": "https://b.example/" },
          "a": { "feed": "https://a2.example/" },
          "c": { "feed": "https://c.example/" }
        }
      }
      """
    let (folder, path) = try file(original)
    defer { _ = folder }
    var edit = try JSONFileEdit(path: path)
    #expect(try edit.removeSource(named: "a"))
    #expect(try edit.sourceNames() == ["b", "c"])
    #expect(try edit.removeSource(named: "c"))
    #expect(
      text(edit) == """
        {
          "sources": {
            "b": { "feed": "https://b.example/" }
          }
        }
        """)
    #expect(try edit.removeSource(named: "b"))
    #expect(text(edit) == "{\n  \"sources\": {}\n}")
    #expect(try !edit.removeSource(named: "zzz"))
  }

  @Test("not JSON, or not an object: a configuration error naming the file")
  func invalid() throws {
    for text in ["{\"sources\": {", "[1, 2]", "{\"sources\": []}", "{\"a\": 1} trailing", "{\"a\" 1}"] {
      let folder = TemporaryDirectory("config-edit")
      let path = folder.path("news.json")
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
      #expect(throws: SubscriptionFileError.self, "\(text)") { try JSONFileEdit(path: path) }
    }
  }

  @Test("save: the result is checked before it replaces the file, which otherwise stays as it was")
  func saveChecks() throws {
    let original = "{\"sources\": {}, \"timeoutSeconds\": 3}"
    let (folder, path) = try file(original)
    var edit = try JSONFileEdit(path: path)
    try edit.addSource(named: "bad", fields: [("feed", .string("not a url"))])
    #expect(throws: SubscriptionFileError.self) { try edit.save(check: Self.readBack) }
    #expect(try String(contentsOfFile: edit.path, encoding: .utf8) == original)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(leftovers == ["news.json"], "no temporary file is left behind")
  }

  @Test("save keeps the file's permissions and writes through a symbolic link to its target")
  func permissionsAndLinks() throws {
    let folder = TemporaryDirectory("config-edit")
    let target = folder.path("real.json")
    try Data("{\"sources\": {}}".utf8).write(to: URL(fileURLWithPath: target))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
    let link = folder.path("link.json")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    var edit = try JSONFileEdit(path: link)
    try edit.addSource(named: "a", fields: [("feed", .string("https://a.example/"))])
    try edit.save(check: Self.readBack)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    let permissions = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber
    #expect(permissions?.intValue == 0o600)
    #expect(try JSONFileEdit(path: target).sourceNames() == ["a"])
  }
}
