import Foundation

/// Keeps secrets (API keys, tokens) out of every text a person or a log may see: each occurrence is replaced by
/// `<redacted>`.
///
/// For example:
/// ```swift
/// Redaction.redacted("bad key k-123 for k-123", secrets: ["k-123"])  // "bad key <redacted> for <redacted>"
/// ```
///
/// Redact a text whole before cutting it to length: a secret straddling the cut would otherwise leak in part.
package enum Redaction {
  /// What a secret is replaced by.
  package static let placeholder = "<redacted>"

  /// `text` with every occurrence of each of `secrets` (empty ones ignored) replaced by ``placeholder``.
  package static func redacted(_ text: String, secrets: [String]) -> String {
    secrets.reduce(text) { text, secret in
      secret.isEmpty ? text : text.replacingOccurrences(of: secret, with: placeholder)
    }
  }
}
