import Foundation

extension URL {
  /// Whether this is a web address: an absolute `http` or `https` URL (the scheme in any case, RFC 3986 §3.1) with a
  /// non-empty host (RFC 9110 §4.2.1: an http(s) URI without a host is invalid). The one rule for "an http(s) URL"
  /// of the package: links that can be an article's identity, what a transport sends, what a configuration accepts.
  package var isWebURL: Bool {
    guard let scheme = scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
    return host?.isEmpty == false
  }
}
