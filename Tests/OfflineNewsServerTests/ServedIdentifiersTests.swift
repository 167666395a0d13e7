import Testing

@testable import OfflineNewsServer

@Suite struct ServedIdentifiersTests {
  @Test func anEntryIDFindsItsArticleAgainByHandlePrefix() throws {
    let key = "https://example.com/a"
    let id = ServedIdentifiers.entryID(forKey: key)
    #expect(id > 0 && id < 1 << 52)
    let prefix = try #require(ServedIdentifiers.servedIDPrefix(ofEntryID: id))
    let item = ServedIdentifiers.readerItemID(forKey: key)
    #expect(item.hasSuffix(prefix) == false)
    #expect(item.dropFirst(ServedIdentifiers.readerItemPrefix.count).hasPrefix(prefix))
  }

  @Test func aReaderItemIDIsReadInEachOfItsForms() {
    let key = "https://example.com/b"
    let long = ServedIdentifiers.readerItemID(forKey: key)
    let handle = String(long.dropFirst(ServedIdentifiers.readerItemPrefix.count))
    let short = ServedIdentifiers.readerShortItemID(forKey: key)
    #expect(ServedIdentifiers.servedID(ofReaderItemID: long) == handle)
    #expect(ServedIdentifiers.servedID(ofReaderItemID: handle) == handle)
    #expect(ServedIdentifiers.servedID(ofReaderItemID: String(short)) == handle)
    #expect(ServedIdentifiers.servedID(ofReaderItemID: "feed/x") == nil)
  }

  @Test func sourceIDsIgnoreCaseAndFoldersDiffer() {
    #expect(ServedIdentifiers.feedID(forSourceNamed: "ATP") == ServedIdentifiers.feedID(forSourceNamed: "atp"))
    #expect(ServedIdentifiers.categoryID(forFolder: ["Tech"]) != ServedIdentifiers.categoryID(forFolder: ["News"]))
  }
}
