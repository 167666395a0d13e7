import Foundation
import OfflineNewsHTTP

/// The Google Reader API (as FreshRSS serves it) over a ``ServedLibrary``: to be written (issue 28). Called by the
/// server's front door for every `/reader/api/0/…` request but `token` once it is authenticated (`accounts/
/// ClientLogin` and `token` are the front door's).
public struct ReaderAPI: Sendable {
  /// The library served.
  public var library: ServedLibrary
  /// The user name the API reports (`user-info`).
  public var user: String

  /// - Parameters: see the properties of the same names.
  public init(library: ServedLibrary, user: String) {
    self.library = library
    self.user = user
  }

  /// Answers an authenticated `/reader/api/0/…` request.
  public func handle(_ request: ServerRequest) async -> ServerResponse {
    .text("not found", status: 404)
  }
}
