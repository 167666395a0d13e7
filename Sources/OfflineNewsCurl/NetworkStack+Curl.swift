import Foundation
import OfflineNewsHTTP
import OfflineNewsNetwork

extension NetworkStack {
  /// The network over libcurl: ``HTTPNewsNetwork`` for news sources, ``CurlHTTPTransport`` for any
  /// other request (the one HTTP transport of the package).
  ///
  /// For example:
  /// ```swift
  /// let commandLine = NewsCommandLine(environment: ProcessInfo.processInfo.environment, network: .curl)
  /// ```
  package static let curl = curl(refusedRedirects: nil)

  /// ``curl`` with the redirects `rule` refuses not followed (`nil`: none refused).
  private static func curl(refusedRedirects rule: RedirectTargetRule?) -> NetworkStack {
    NetworkStack(
      newsNetwork: { apiKey, timeout, retry, decoder in
        HTTPNewsNetwork(key: apiKey, timeout: timeout, retry: retry, decoder: decoder, refusedRedirects: rule)
      },
      httpTransport: { timeout, retry, secrets in
        CurlHTTPTransport(timeout: timeout, retry: retry, secrets: secrets, refusedRedirects: rule)
      },
      refusing: { curl(refusedRedirects: $0) })
  }
}
