import Foundation
import OfflineNewsHTTP
import OfflineNewsNetwork

extension NetworkStack {
  /// The network over URLSession: ``URLSessionNewsNetwork`` for news sources, ``URLSessionHTTPTransport`` for any
  /// other request (the one HTTP transport of the package).
  ///
  /// For example:
  /// ```swift
  /// let commandLine = NewsCommandLine(environment: ProcessInfo.processInfo.environment, network: .urlSession)
  /// ```
  package static let urlSession = NetworkStack(
    newsNetwork: { apiKey, timeout, retry, decoder in
      URLSessionNewsNetwork(key: apiKey, timeout: timeout, retry: retry, decoder: decoder)
    },
    httpTransport: { timeout, retry, secrets in
      URLSessionHTTPTransport(timeout: timeout, retry: retry, secrets: secrets)
    })
}
