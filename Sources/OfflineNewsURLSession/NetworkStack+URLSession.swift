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
  package static let urlSession = urlSession(refusedRedirects: nil)

  /// ``urlSession`` with the redirects `rule` refuses not followed (`nil`: none refused).
  private static func urlSession(refusedRedirects rule: RedirectTargetRule?) -> NetworkStack {
    NetworkStack(
      newsNetwork: { apiKey, timeout, retry, decoder in
        URLSessionNewsNetwork(key: apiKey, timeout: timeout, retry: retry, decoder: decoder, refusedRedirects: rule)
      },
      httpTransport: { timeout, retry, secrets in
        URLSessionHTTPTransport(timeout: timeout, retry: retry, secrets: secrets, refusedRedirects: rule)
      },
      refusing: { urlSession(refusedRedirects: $0) })
  }
}
