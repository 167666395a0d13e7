import Foundation

/// The timeout rule of every HTTP transport, in seconds: what a requested timeout becomes.
///
/// For example:
/// ```swift
/// RequestTimeout.effective(0.2)   // 0.2
/// RequestTimeout.effective(1e9)   // 86,400: one day
/// RequestTimeout.effective(.nan)  // 5, the default
/// ```
///
/// A value of its own (not of `CurlHTTPTransport`'s module, `OfflineNewsCurl`) so that code that only builds
/// requests and retry budgets, like the `news` command line, does not link libcurl.
package enum RequestTimeout {
  /// The default timeout, in seconds.
  package static let standard: TimeInterval = 5

  /// The longest timeout in force, in seconds (one day): libcurl takes it as integer milliseconds
  /// (`CURLOPT_TIMEOUT_MS`), so larger ones (and infinity) are capped.
  package static let maximum: TimeInterval = 86_400

  /// The timeout in force for a requested one, in seconds: at least a millisecond (libcurl's unit), at most
  /// ``maximum``; NaN, zero or a negative value mean ``standard``.
  package static func effective(_ requested: TimeInterval) -> TimeInterval {
    requested.isNaN || requested <= 0 ? standard : min(max(requested, 0.001), maximum)
  }
}
