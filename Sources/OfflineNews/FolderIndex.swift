/// The members of a folder tree, grouped in one pass: what each folder holds, the folders below it included, and
/// what is filed in it directly. Folder paths are outermost first (`["Tech", "Swift"]`), compared exactly, as
/// ``NewsSource/isFiled(under:)`` compares them.
///
/// Built in O(members × depth); a front end showing every folder's count asks it once per folder instead of
/// filtering every member for every folder (with 5,000 subscriptions in 400 folders, two million comparisons).
///
/// ```swift
/// let index = FolderIndex(sources.map { ($0.folder, $0.match) })
/// let tech = index.members(under: ["Tech"])   // Tech's and Tech/Swift's, in the order given
/// ```
public struct FolderIndex<Member> {
  private var under: [[String]: [Member]] = [:]
  private var directly: [[String]: [Member]] = [:]

  /// Indexes `members`, each with its folder path (`[]`: in no folder), keeping their order within each folder.
  public init(_ members: some Sequence<([String], Member)>) {
    for (folder, member) in members {
      directly[folder, default: []].append(member)
      for depth in stride(from: 0, through: folder.count, by: 1) {
        under[Array(folder.prefix(depth)), default: []].append(member)
      }
    }
  }

  /// The members filed in `folder` or in a folder below it (`[]`: every member).
  public func members(under folder: [String]) -> [Member] {
    under[folder] ?? []
  }

  /// The members whose folder is exactly `folder` (`[]`: those in no folder).
  public func members(directlyIn folder: [String]) -> [Member] {
    directly[folder] ?? []
  }
}
