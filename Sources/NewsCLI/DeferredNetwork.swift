import OfflineNews
import OfflineNewsModel
import OfflineNewsNetwork
import Synchronization

/// A network made at its first request: every command builds a repository, and most never ask the network, so
/// what making one costs (the `jsonfeed` mapping read and parsed for the decoder, libcurl's handles) is paid only by the
/// commands that use it (docs/PERFORMANCE.md, "Command-line latency").
final class DeferredNetwork: NewsNetwork {
  private let make: @Sendable () -> any NewsNetwork
  private let made = Mutex<(any NewsNetwork)?>(nil)

  init(_ make: @escaping @Sendable () -> any NewsNetwork) {
    self.make = make
  }

  private var network: any NewsNetwork {
    made.withLock { made in
      if let made { return made }
      let network = make()
      made = network
      return network
    }
  }

  func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    try await network.fetch(query)
  }

  func fetch(_ request: NewsRequest) async throws(NewsNetworkError) -> NewsResponse {
    try await network.fetch(request)
  }
}
