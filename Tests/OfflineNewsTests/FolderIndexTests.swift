import Foundation
import OfflineNews
import Testing

@Suite("FolderIndex: a folder tree's members grouped in one pass")
struct FolderIndexTests {
  @Test("under a folder: its own and those below it, in the order given; directly in: the exact folder; exact case")
  func grouping() {
    let index = FolderIndex([
      (["Tech", "Swift"], "a"), (["tech"], "b"), ([], "c"), (["Tech"], "d"), (["Tech 2"], "e"),
      (["Tech", "Swift", "Server"], "f"),
    ])
    #expect(index.members(under: ["Tech"]) == ["a", "d", "f"])
    // `tech` is another folder than `Tech` (a newsboat tag beside an OPML folder), as the lists show them.
    #expect(index.members(under: ["tech"]) == ["b"])
    #expect(index.members(under: ["TECH", "swift"]).isEmpty)
    #expect(index.members(under: ["Tech", "Swift"]) == ["a", "f"])
    #expect(index.members(under: []) == ["a", "b", "c", "d", "e", "f"])
    #expect(index.members(under: ["Music"]).isEmpty)
    #expect(index.members(directlyIn: ["Tech"]) == ["d"])
    #expect(index.members(directlyIn: []) == ["c"])
    // The same answers as NewsSource.isFiled(under:) filtering every member for every folder.
    let folders: [[String]] = [["Tech"], ["tech"], ["tech", "SWIFT"], ["Tech 2"], ["Tech", "Swift", "Server"], []]
    let members: [([String], String)] = [
      (["Tech", "Swift"], "a"), (["tech"], "b"), ([], "c"), (["Tech"], "d"), (["Tech 2"], "e"),
      (["Tech", "Swift", "Server"], "f"),
    ]
    for folder in folders {
      let filtered = members.filter { member in
        NewsSource(name: "x", url: URL(fileURLWithPath: "/x"), folder: member.0).isFiled(under: folder)
      }.map(\.1)
      #expect(index.members(under: folder) == filtered, "\(folder)")
    }
  }
}
