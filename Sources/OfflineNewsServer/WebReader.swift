import Foundation
import OfflineNewsHTTP

/// The web reader at `/` over a ``ServedLibrary``: to be written (issue 28). Called by the server's front door for
/// every request that is not an API's, once the session is authenticated and, for a state change, its CSRF token
/// checked.
public struct WebReader: Sendable {
  /// The library served.
  public var library: ServedLibrary

  /// - Parameter library: the library served.
  public init(library: ServedLibrary) { self.library = library }

  /// Answers a web request of an authenticated session.
  public func handle(_ request: ServerRequest, session: WebSession) async -> ServerResponse {
    .text("not found", status: 404)
  }
}
