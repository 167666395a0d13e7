import Foundation
import OfflineNewsHTTP
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct ReasonPhraseTests {
  #if os(Linux)
    static let onLinux = true
  #else
    static let onLinux = false
  #endif

  @Test(
    "reason phrases are FoundationNetworking's, for every status code and beyond, without linking it",
    .enabled(if: onLinux, "Apple's HTTPURLResponse gives localized phrases"))
  func sameAsFoundationNetworking() {
    for status in -1...700 {
      #expect(
        HTTPResponse.reasonPhrase(forStatus: status) == HTTPURLResponse.localizedString(forStatusCode: status),
        "status \(status)")
    }
  }
}
