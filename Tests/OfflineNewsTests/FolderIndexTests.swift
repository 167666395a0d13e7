import OfflineNews
import Testing

@Suite("FolderIndex: a folder tree's members grouped in one pass")
struct FolderIndexTests {
  @Test("under a folder: its own and those below it, any case, in the order given; directly in: the exact folder")
  func grouping() {
    let index = FolderIndex([
      (["Tech", "Swift"], "a"), (["tech"], "b"), ([], "c"), (["Tech"], "d"), (["Tech 2"], "e"),
      (["Tech", "Swift", "Server"], "f"),
    ])
    #expect(index.members(under: ["Tech"]) == ["a", "b", "d", "f"])
    #expect(index.members(under: ["TECH", "swift"]) == ["a", "f"])
    #expect(index.members(under: []) == ["a", "b", "c", "d", "e", "f"])
    #expect(index.members(under: ["Music"]).isEmpty)
    #expect(index.members(directlyIn: ["Tech"]) == ["d"])
    #expect(index.members(directlyIn: []) == ["c"])
    // The same answers as NewsSource.isFiled(under:) filtering every member for every folder.
    let folders: [[String]] = [["Tech"], ["tech", "SWIFT"], ["Tech 2"], ["Tech", "Swift", "Server"], []]
    let members: [([String], String)] = [
      (["Tech", "Swift"], "a"), (["tech"], "b"), ([], "c"), (["Tech"], "d"), (["Tech 2"], "e"),
      (["Tech", "Swift", "Server"], "f"),
    ]
    for folder in folders {
      let filtered = members.filter { member in
        folder.count <= member.0.count && zip(folder, member.0).allSatisfy { $0.lowercased() == $1.lowercased() }
      }.map(\.1)
      #expect(index.members(under: folder) == filtered, "\(folder)")
    }
  }
}
