import Foundation
import OfflineNewsModel

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The real ``NewsNetwork``: NewsAPI v2 over HTTP(S) with `URLSession`.
///
/// For example:
/// ```swift
/// let network = URLSessionNewsNetwork(apiKey: ProcessInfo.processInfo.environment["NEWSAPI_KEY"], timeout: 5)
/// let page = try await network.fetch(NewsQuery(url: URL(string: "https://newsapi.org/v2/top-headlines?country=us")!))
/// ```
///
/// - The key is sent in the `X-Api-Key` header, as NewsAPI recommends (<https://newsapi.org/docs/authentication>),
///   never in the URL; it is removed from every error text.
/// - `timeout` bounds the whole request, connection included (URLSession's own default is 60 s). A server that
///   never answers fails with ``NewsNetworkError/TransportFailure/timedOut``.
/// - Nothing is cached by URLSession (ephemeral session, no `URLCache`): the repository owns the cache.
/// - A `file:` URL is read by ``FileNewsNetwork``.
public final class URLSessionNewsNetwork: NewsNetwork {
  private let apiKey: String?
  /// The request timeout in force, in seconds.
  public let timeout: TimeInterval
  private let session: URLSession
  private let decoder = NewsAPIDecoder()

  /// - Parameters:
  ///   - apiKey: the NewsAPI key (`NEWSAPI_KEY`), or `nil` to send none (NewsAPI then answers `apiKeyMissing`).
  ///   - timeout: seconds allowed for the whole request; default 5. On Linux, URLSession (libcurl) counts whole
  ///     seconds and treats a fraction below one as zero (an immediate timeout), so the timeout is rounded up to
  ///     whole seconds there; ``timeout`` says the value in force.
  public init(apiKey: String?, timeout: TimeInterval = 5) {
    self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
    #if os(Linux)
      self.timeout = max(1, timeout.rounded(.up))
    #else
      self.timeout = timeout
    #endif
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = self.timeout
    configuration.timeoutIntervalForResource = self.timeout
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpAdditionalHeaders = ["Accept": "application/json", "User-Agent": "OfflineNews/0.1"]
    session = URLSession(configuration: configuration)
  }

  deinit { session.finishTasksAndInvalidate() }

  public func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    if query.url.isFileURL { return try await FileNewsNetwork().fetch(query) }
    guard let scheme = query.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw .unsupportedURL(query.cacheKey)
    }
    var request = URLRequest(url: query.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
    if let apiKey { request.setValue(apiKey, forHTTPHeaderField: "X-Api-Key") }

    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch {
      throw redacted(Self.transportError(error, timeout: timeout))
    }
    let status = (response as? HTTPURLResponse)?.statusCode
    do {
      return try decoder.decode(data, httpStatus: status, redacting: apiKey)
    } catch {
      throw redacted(error)
    }
  }

  static func transportError(_ error: any Error, timeout: TimeInterval) -> NewsNetworkError {
    guard let error = error as? URLError else {
      return .transport(.other, detail: String(describing: type(of: error)))
    }
    switch error.code {
    case .cannotConnectToHost: return .transport(.connectionRefused, detail: "")
    case .cannotFindHost, .dnsLookupFailed: return .transport(.hostNotFound, detail: "")
    case .timedOut: return .transport(.timedOut, detail: "no complete answer within \(formatted(timeout)) s")
    case .networkConnectionLost: return .transport(.connectionLost, detail: "the server closed the connection")
    case .badServerResponse:
      // Linux (libcurl) reports a connection closed before any response as -1011, "Empty reply from server".
      return .transport(.connectionLost, detail: "the server closed the connection without an answer")
    case .unknown where error.localizedDescription.contains("transfer closed"):
      // Linux (libcurl) reports a body cut short of its Content-Length as -1 "transfer closed with N bytes
      // remaining to read", where Apple platforms say networkConnectionLost.
      return .transport(.connectionLost, detail: "the response was cut short")
    case .notConnectedToInternet: return .transport(.notConnected, detail: "")
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
      return .transport(.secureConnectionFailed, detail: "URLError \(error.code.rawValue)")
    case .cancelled: return .transport(.other, detail: "cancelled")
    default: return .transport(.other, detail: "URLError \(error.code.rawValue)")
    }
  }

  /// The error with every occurrence of the API key replaced by `<redacted>`.
  private func redacted(_ error: NewsNetworkError) -> NewsNetworkError {
    guard let apiKey, error.description.contains(apiKey) else { return error }
    func clean(_ text: String) -> String { text.replacingOccurrences(of: apiKey, with: "<redacted>") }
    switch error {
    case .transport(let failure, let detail): return .transport(failure, detail: clean(detail))
    case .httpStatus(let status, let body): return .httpStatus(status, bodyPrefix: clean(body))
    case .api(var apiError):
      apiError.message = clean(apiError.message)
      return .api(apiError)
    case .invalidResponse(let detail): return .invalidResponse(detail: clean(detail))
    case .unreadableFile(let path, let reason): return .unreadableFile(path: clean(path), reason: clean(reason))
    case .unsupportedURL(let url): return .unsupportedURL(clean(url))
    }
  }
}

private func formatted(_ seconds: TimeInterval) -> String {
  seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}
