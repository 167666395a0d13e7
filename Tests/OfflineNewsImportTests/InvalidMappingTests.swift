import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import TestSupport
import Testing

@Suite("Invalid mappings are refused, naming the place")
struct InvalidMappingTests {
  /// A valid mapping with `entity`'s JSON (the only entity) and `top` extra top-level members.
  static func with(entity: String, top: String = "") -> String {
    """
    {"name": "m", "records": "items", "root": "thing", \(top) "entities": [\(entity)]}
    """
  }

  static let thing = #""entity": "thing", "identity": ["id"]"#

  static func attribute(_ spec: String) -> String {
    with(entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}, \"x\": \(spec)}}")
  }

  static func relationship(_ spec: String) -> String {
    with(
      entity: """
        {\(thing), "attributes": {"id": {"type": "integer"}}, "relationships": {"r": \(spec)}}
        """)
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var json: String
    /// A fragment the message must contain: the place at fault.
    var place: String
    var testDescription: String { place }
  }

  static let reported: [Case] = [
    // Unknown keys, at every level.
    Case(
      json: #"{"name": "m", "recrods": "items", "root": "thing", "entities": []}"#, place: #"unknown key "recrods""#),
    Case(json: with(entity: "{\(thing), \"atributes\": {}}"), place: #"unknown key "entities[0].atributes""#),
    Case(json: attribute(#"{"tpye": "text"}"#), place: #"unknown key "entities[0].attributes.x.tpye""#),
    Case(
      json: relationship(#"{"to": "thing", "kind": "toOne", "kindd": 1}"#),
      place: #"unknown key "entities[0].relationships.r.kindd""#),
    Case(
      json: with(
        entity:
          "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"skip\": [{\"key\": \"a\", \"equals\": 1}]}"),
      place: #"entities[0].skip[0].key"#),
    Case(
      json: with(
        entity:
          "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"indexes\": [{\"name\": \"i\", \"columns\": [\"id\"]}]}"
      ),
      place: #"entities[0].indexes[0].columns"#),
    // Wrong types and values.
    Case(json: attribute(#"{"type": "strng"}"#), place: "entities[0].attributes.x.type"),
    Case(json: attribute(#"{"type": "text", "optional": "yes"}"#), place: "entities[0].attributes.x.optional"),
    Case(json: attribute(#"{"type": "integer", "default": "x"}"#), place: "entities[0].attributes.x.default"),
    Case(
      json: attribute(#"{"type": "text", "transforms": ["shout"]}"#), place: "entities[0].attributes.x.transforms[0]"),
    Case(json: attribute(#"{"type": "text", "transforms": "trim"}"#), place: "entities[0].attributes.x.transforms"),
    Case(json: attribute(#"{"type": "date", "unixTime": "minutes"}"#), place: "entities[0].attributes.x.unixTime"),
    Case(json: attribute(#"{"type": "date", "assumeOffset": "CET"}"#), place: "entities[0].attributes.x.assumeOffset"),
    Case(json: attribute(#"{"type": "text", "from": 3}"#), place: "entities[0].attributes.x.from"),
    Case(json: attribute(#""text""#), place: "entities[0].attributes.x must be an object"),
    Case(json: relationship(#"{"to": "thing", "kind": "many"}"#), place: "entities[0].relationships.r.kind"),
    Case(
      json: relationship(#"{"to": "thing", "kind": "toMany", "mode": "merge"}"#),
      place: "entities[0].relationships.r.mode"),
    Case(json: relationship(#"{"kind": "toOne"}"#), place: "entities[0].relationships.r.to"),
    Case(
      json: with(
        entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"onInvalidValue\": \"ignore\"}"),
      place: "entities[0].onInvalidValue"),
    Case(
      json: with(
        entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"fullRepresentation\": \"yes\"}"),
      place: "entities[0].fullRepresentation"),
    Case(json: with(entity: "{\(thing), \"attributes\": []}"), place: "entities[0].attributes must be an object"),
    Case(
      json: with(entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"set\": {\"nope\": 1}}"),
      place: "entities[0].set.nope"),
    Case(
      json: #"{"name": "m", "records": "items", "root": "thing", "entities": {}}"#, place: "entities must be an array"),
    Case(json: #"{"name": 5, "records": "items", "root": "thing", "entities": []}"#, place: "name must be a string"),
    Case(
      json: with(entity: #"{"entity": "thing", "identity": ["key"], "attributes": {"id": {"type": "integer"}}}"#),
      place: "identity \"key\""),
    Case(
      json:
        #"{"name": "m", "records": "items", "root": "other", "entities": [{"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}]}"#,
      place: "root \"other\""),
    Case(
      json: with(entity: #"{"entity": "bad name", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}"#),
      place: "bad name"),
    // Relationships to entities the mapping does not declare; joins on undeclared relationships.
    Case(
      json: relationship(#"{"to": "person", "kind": "toOne"}"#),
      place: "relationship r goes to person, which the mapping does not declare"),
    Case(
      json: with(
        entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}}",
        top: #""join": {"entity": "thing", "relationship": "tags", "owner": "a", "target": "b"},"#),
      place: "join"),
  ]

  @Test("unknown keys, wrong types, undeclared entities: invalidMapping naming the place", arguments: reported)
  func reportedProblems(_ problem: Case) {
    let message = mappingProblem(problem.json)
    #expect(message?.contains(problem.place) == true, "\(message ?? "accepted")")
  }

  /// The keys added for the importer's expressiveness, each misused once.
  static let newKeys: [Case] = [
    Case(json: attribute(#"{"type": "text", "from": []}"#), place: "entities[0].attributes.x.from is an empty list"),
    Case(json: attribute(#"{"type": "text", "from": ["a", 1]}"#), place: "entities[0].attributes.x.from[1]"),
    Case(json: attribute(#"{"type": "text", "baseURL": "home"}"#), place: "baseURL applies to url attributes"),
    Case(json: attribute(#"{"type": "url", "baseURL": 3}"#), place: "entities[0].attributes.x.baseURL must be"),
    Case(json: attribute(#"{"type": "text", "format": "yyyy"}"#), place: "format applies to date attributes"),
    Case(json: attribute(#"{"type": "date", "format": "HH:mm"}"#), place: "needs a year (yyyy), a month (M) and a day"),
    Case(json: attribute(#"{"type": "date", "timeZone": "UTC"}"#), place: "timeZone applies to a \"format\""),
    Case(json: attribute(#"{"type": "date", "unixTime": "ms"}"#), place: "unixTime \"ms\" is not a unit"),
    Case(
      json: with(
        entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}}", top: #""assumeOffset": "CET","#),
      place: "assumeOffset \"CET\" is not a UTC offset"),
    Case(json: relationship(#"{"to": "thing", "kind": "toOne", "deleteOrphans": true}"#), place: "deleteOrphans"),
    Case(json: relationship(#"{"to": "thing", "kind": "toOne", "mode": "add"}"#), place: "mode applies to toMany"),
    Case(
      json: with(entity: #"{"entity": "thing", "identity": [["id"]], "attributes": {"id": {"type": "integer"}}}"#),
      place: "at least two attribute names"),
    Case(
      json: with(
        entity: #"{"entity": "thing", "identity": [["id", "nope"]], "attributes": {"id": {"type": "integer"}}}"#),
      place: "the candidate \"nope\""),
    Case(
      json: with(
        entity: #"{"entity": "thing", "owned": true, "identity": ["id"], "attributes": {"id": {"type": "integer"}}}"#),
      place: "an owned entity has no identity"),
    Case(
      json: with(entity: #"{"entity": "thing", "owned": true, "attributes": {"x": {"type": "integer"}}}"#),
      place: "no relationship goes to it"),
    Case(
      json: with(entity: #"{"entity": "thing", "attributes": {"id": {"type": "integer"}}}"#),
      place: "identity is missing"),
    Case(
      json: #"{"name": "m", "records": "a", "record": "b", "root": "thing", "entities": []}"#,
      place: "records and record are both given"),
    Case(
      json: with(
        entity:
          #"{"entity": "thing", "identity": ["a", "b"], "attributes": {"a": {"type": "integer"}, "b": {"type": "integer"}}}"#,
        top: #""recordsAreIdentifiers": true,"#),
      place: "each record is one identifier"),
    Case(
      json: with(
        entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}}",
        top: #""entityBy": {"keyPath": "type", "map": {"a": "thing"}},"#),
      place: "root, roots and join cannot be given with it"),
    Case(
      json:
        #"{"name": "m", "records": "", "entityBy": {"keyPath": "type", "map": {"a": "nope"}}, "entities": [{"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}]}"#,
      place: "entityBy.map.a: no entity \"nope\""),
    Case(
      json:
        #"{"name": "m", "records": "", "entityBy": {"keyPath": "type", "map": {}}, "entities": [{"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}]}"#,
      place: "entityBy.map must be an object"),
    Case(
      json: """
        {"name": "m", "records": "", "root": "thing", "entities": [
          {"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}},
           "relationships": {"one": {"to": "value", "kind": "toOne"}}},
          {"entity": "value", "owned": true, "attributes": {"x": {"type": "integer"}}}]}
        """, place: "is owned (value rows in a list)"),
    Case(
      json: """
        {"name": "m", "records": "", "root": "value", "entities": [
          {"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}},
           "relationships": {"many": {"to": "value", "kind": "toMany"}}},
          {"entity": "value", "owned": true, "attributes": {"x": {"type": "integer"}}}]}
        """, place: "it cannot be a root"),
    Case(
      json: """
        {"name": "m", "records": "articles", "root": "article", "entities": [
          {"entity": "article", "attributes": {"url": {"type": "text"}}}]}
        """, place: "remove \"type\""),
    Case(
      json: """
        {"name": "m", "records": "articles", "root": "article", "entities": [
          {"entity": "article", "identity": ["title"], "attributes": {"url": {}}}]}
        """, place: "is identified by url"),
  ]

  @Test("the keys added for expressiveness are checked too", arguments: newKeys)
  func newKeyProblems(_ problem: Case) {
    let message = mappingProblem(problem.json)
    #expect(message?.contains(problem.place) == true, "\(message ?? "accepted")")
  }

  /// Words of a message that says what to write instead.
  static let hints = ["write", "did you mean", "known here", "add ", "remove", "declare", "give"]

  @Test("every mapping error says what to write instead")
  func everyErrorHasAHint() {
    for problem in Self.reported + Self.ignored + Self.newKeys {
      guard let message = mappingProblem(problem.json) else { continue }
      #expect(Self.hints.contains { message.contains($0) }, "\(message)")
    }
  }

  @Test("a typo in a key gets the key it meant")
  func didYouMean() {
    #expect(mappingProblem(Self.attribute(#"{"tpye": "text"}"#))?.contains(#"did you mean "type"?"#) == true)
    #expect(mappingProblem(Self.attribute(#"{"type": "txt"}"#))?.contains(#"write "text""#) == true)
    #expect(
      mappingProblem(Self.attribute(#"{"type": "text", "transforms": ["trimm"]}"#))?.contains(#"write "trim""#) == true)
  }

  @Test("a relationship destination with a required attribute is refused (placeholders must fit)")
  func requiredAttributeOnDestination() {
    let message = mappingProblem(
      """
      {"name": "m", "records": "items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}},
         "relationships": {"owner": {"to": "person", "kind": "toOne"}}},
        {"entity": "person", "identity": ["id"],
         "attributes": {"id": {"type": "text"}, "name": {"type": "text", "optional": false}}}]}
      """)
    #expect(message?.contains("person") == true && message?.contains("name") == true, "\(message ?? "accepted")")
    // With a default, the placeholder fits: accepted.
    #expect(
      mappingProblem(
        """
        {"name": "m", "records": "items", "root": "thing", "entities": [
          {"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}},
           "relationships": {"owner": {"to": "person", "kind": "toOne"}}},
          {"entity": "person", "identity": ["id"],
           "attributes": {"id": {"type": "text"}, "name": {"type": "text", "optional": false, "default": "?"}}}]}
        """) == nil)
  }

  static let ignored: [Case] = [
    Case(
      json:
        #"{"name": "m", "records": 42, "root": "thing", "entities": [{"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}}}]}"#,
      place: "records"),
    Case(
      json: with(
        entity:
          "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"skip\": {\"keyPath\": \"a\", \"equals\": 1}}"
      ), place: "entities[0].skip"),
    Case(
      json: with(entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"indexes\": \"by_id\"}"),
      place: "entities[0].indexes"),
    Case(
      json: with(entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}, \"set\": [\"id\"]}"),
      place: "entities[0].set"),
    Case(
      json: with(entity: "{\(thing), \"attributes\": {\"id\": {\"type\": \"integer\"}}}", top: #""roots": ["thing"],"#),
      place: "roots"),
  ]

  @Test("members of the wrong type are refused, not silently ignored", arguments: ignored)
  func wrongTypesNotIgnored(_ problem: Case) {
    let message = mappingProblem(problem.json)
    #expect(message?.contains(problem.place) == true, "\(message ?? "accepted")")
  }

  @Test("a relationship to an entity with a composite identity is refused when the mapping is read")
  func compositeIdentityDestination() {
    let message = mappingProblem(
      """
      {"name": "m", "records": "items", "root": "thing", "entities": [
        {"entity": "thing", "identity": ["id"], "attributes": {"id": {"type": "integer"}},
         "relationships": {"visit": {"to": "visit", "kind": "toOne"}}},
        {"entity": "visit", "identity": ["person", "day"],
         "attributes": {"person": {"type": "text"}, "day": {"type": "date"}}}]}
      """)
    #expect(message?.contains("visit") == true, "\(message ?? "accepted")")
  }

  @Test("a mapping file's problems name the file; a file that is not JSON is invalidMapping too")
  func fileNamed() throws {
    let directory = TemporaryDirectory("offlinenews-mapping")
    let bad = directory.url.appendingPathComponent("bad-mapping.json")
    try Data(#"{"name": "m", "records": "items", "root": "thing", "entities": [], "extra": 1}"#.utf8).write(to: bad)
    do {
      _ = try ImportMapping.load(contentsOf: bad)
      Issue.record("loaded")
    } catch {
      guard case .invalidMapping(let message) = error else { throw error }
      #expect(message.contains("bad-mapping.json"))
      #expect(message.contains("\"extra\""))
    }
    let notJSON = directory.url.appendingPathComponent("not-json.json")
    try Data("{ name: m".utf8).write(to: notJSON)
    #expect(throws: ImportError.self) { try ImportMapping.load(contentsOf: notJSON) }
    #expect(throws: ImportError.self) {
      try ImportMapping.load(contentsOf: directory.url.appendingPathComponent("missing.json"))
    }
  }
}
