import OfflineNewsHTTP

extension RetryPolicy {
  /// Whether the request that failed with `error` was worth another attempt by the transport's rule (see
  /// ``RetryPolicy``): a retryable transport failure, or an HTTP status `5xx` or `429` — a NewsAPI error body
  /// included, judged by its HTTP status. Never another status, a `2xx` body that is a NewsAPI error or not valid
  /// JSON, an unreadable file, an unsupported URL, a body over the size limit.
  package static func isRetryable(_ error: NewsNetworkError) -> Bool {
    switch error {
    case .transport(let failure, let detail): HTTPError.transport(failure, detail: detail).isRetryable
    case .httpStatus(let status, _): isRetryable(status: status)
    case .api(let apiError): apiError.httpStatus.map(isRetryable(status:)) ?? false
    case .invalidResponse, .unreadableFile, .unsupportedURL, .tooLarge: false
    }
  }
}
