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
