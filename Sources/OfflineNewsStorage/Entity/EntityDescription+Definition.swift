extension EntityDescription {
  /// The definition `EntityMigrator` records for this description in `schema_entity` (its `JSONEncoder` encoding
  /// with `.sortedKeys`), written out without `Codable`, or `nil` when the description holds a value this does not
  /// write: a `real` or `blob` default, or text other than printable ASCII without `"`, `\` and `/` (which
  /// `JSONEncoder` escapes).
  ///
  /// For example, an attribute is `{"isLocalOnly":false,"isOptional":true,"name":"title","type":"text"}`, with
  /// `"defaultValue":{"integer":0}` first when it has one.
  ///
  /// It lets an open that only reads tell that a recorded definition is the declared one by comparing texts, without
  /// decoding it: decoding with `JSONDecoder` was about 5 % of `news list`'s CPU time (docs/PERFORMANCE.md,
  /// "Command-line latency"). Equal texts mean equal descriptions; a `nil` or different text proves nothing, and
  /// the recorded definition is then decoded. `EntityDefinitionTextTests` checks that the text is `JSONEncoder`'s.
  package var definitionText: String? {
    let writer = DefinitionWriter()
    writer.object {
      writer.key("attributes")
      writer.array(attributes) { attribute in
        writer.object {
          if let value = attribute.defaultValue {
            writer.key("defaultValue")
            writer.object {
              switch value {
              case .null:
                writer.key("null")
                writer.literal("true")
              case .integer(let integer):
                writer.key("integer")
                writer.literal(String(integer))
              case .text(let text):
                writer.member("text", text)
              case .real, .blob:
                writer.failed = true
              }
            }
          }
          writer.member("isLocalOnly", attribute.isLocalOnly)
          writer.member("isOptional", attribute.isOptional)
          writer.member("name", attribute.name)
          writer.member("type", attribute.type.rawValue)
        }
      }
      writer.key("identity")
      writer.array(identity) { writer.string($0) }
      writer.key("indexes")
      writer.array(indexes) { index in
        writer.object {
          writer.key("attributes")
          writer.array(index.attributes) { writer.string($0) }
          writer.member("isUnique", index.isUnique)
          writer.member("name", index.name)
        }
      }
      writer.member("name", name)
      writer.key("relationships")
      writer.array(relationships) { relationship in
        writer.object {
          writer.member("destination", relationship.destination)
          writer.member("isOrdered", relationship.isOrdered)
          writer.member("kind", relationship.kind.rawValue)
          writer.member("name", relationship.name)
        }
      }
    }
    return writer.failed ? nil : writer.text
  }
}

/// JSON text as `JSONEncoder` writes it without formatting options: no white space, members in the order written
/// (``EntityDescription/definitionText`` writes them sorted), strings that need no escape only.
private final class DefinitionWriter {
  var text = ""
  /// Set when a value cannot be written as `JSONEncoder` would write it.
  var failed = false
  /// Whether the next member or element is the first of its object or array (no comma before it).
  private var atStart = true

  func object(_ members: () -> Void) {
    separate()
    text += "{"
    atStart = true
    members()
    text += "}"
    atStart = false
  }

  func array<Element>(_ elements: [Element], _ write: (Element) -> Void) {
    separate()
    text += "["
    atStart = true
    for element in elements { write(element) }
    text += "]"
    atStart = false
  }

  /// A member's name and colon; its value follows without a comma.
  func key(_ name: String) {
    string(name)
    text += ":"
    atStart = true
  }

  func string(_ value: String) {
    separate()
    // Printable ASCII but `"`, `\` and `/`: what JSONEncoder writes as it is (it escapes `/` as `\/`).
    if value.utf8.contains(where: { $0 < 0x20 || $0 > 0x7E || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F }) {
      failed = true
    }
    text += "\"" + value + "\""
  }

  func bool(_ value: Bool) { literal(value ? "true" : "false") }

  /// A member whose value is a string (``string(_:)``).
  func member(_ name: String, _ value: String) {
    key(name)
    string(value)
  }

  /// A member whose value is `true` or `false`.
  func member(_ name: String, _ value: Bool) {
    key(name)
    bool(value)
  }

  func literal(_ value: String) {
    separate()
    text += value
  }

  private func separate() {
    if !atStart { text += "," }
    atStart = false
  }
}
