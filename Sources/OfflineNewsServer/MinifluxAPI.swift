import Foundation
import OfflineNewsHTTP

/// The Miniflux API v1 over a ``ServedLibrary``: to be written (issue 28). Called by the server's front door for
/// every `/v1/…` request once it is authenticated.
public struct MinifluxAPI: Sendable {
  /// The library served.
  public var library: ServedLibrary

  /// - Parameter library: the library served.
  public init(library: ServedLibrary) { self.library = library }

  /// Answers an authenticated `/v1/…` request.
  public func handle(_ request: ServerRequest) async -> ServerResponse {
    .text("not found", status: 404)
  }
}
