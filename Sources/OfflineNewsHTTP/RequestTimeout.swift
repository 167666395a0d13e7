import Foundation

/// The timeout rule of every HTTP transport, in seconds: what a requested timeout becomes.
///
/// For example:
/// ```swift
/// RequestTimeout.effective(0.2)   // 1 on Linux (libcurl counts whole seconds), 0.2 elsewhere
/// RequestTimeout.effective(.nan)  // 5, the default
/// ```
///
/// A value of its own (not of `URLSessionHTTPTransport`'s module, `OfflineNewsURLSession`) so that code that only builds requests and
/// retry budgets, like the `news` command line, does not link the URLSession network.
package enum RequestTimeout {
  /// The default timeout, in seconds.
  package static let standard: TimeInterval = 5

  /// The longest timeout in force, in seconds (one day): FoundationNetworking hands the timeout to libcurl as
  /// integer milliseconds and traps on values beyond `Int.max`, so larger ones (and infinity) are capped.
  package static let maximum: TimeInterval = 86_400

  /// The timeout in force for a requested one, in seconds: at most ``maximum``; NaN, zero or a negative value mean
  /// ``standard``. On Linux, URLSession (libcurl) counts whole seconds and treats a fraction below one as zero (an
  /// immediate timeout), so the timeout is rounded up to whole seconds there, at least 1.
  package static func effective(_ requested: TimeInterval) -> TimeInterval {
    let bounded = requested.isNaN || requested <= 0 ? standard : min(requested, maximum)
    #if os(Linux)
      return max(1, bounded.rounded(.up))
    #else
      return bounded
    #endif
  }
}
