import Foundation
import OfflineNewsModel

/// The `Host` header check against DNS rebinding (a page on `evil.example` whose name is made to resolve to
/// 127.0.0.1 reaches a loopback server, but its requests say `Host: evil.example`): a request is served only when
/// its host (the `Host` header without its port, case-insensitively) is
///
/// - an IP literal (`127.0.0.1`, `[::1]`, `192.0.2.7`): a rebinding attack always uses a name;
/// - `localhost` (or a name ending in `.localhost`, RFC 6761 §6.3) when the server listens on loopback or on every
///   address;
/// - one of the configured names (`"serve": {"names": ["news.example"]}`), as a TLS proxy in front forwards them.
///
/// Anything else is refused with 421 Misdirected Request (RFC 9110 §15.5.20) and logged.
public struct HostCheck: Sendable {
  /// The names allowed besides IP literals and `localhost`, lower-cased.
  public var names: Set<String>
  /// Whether `localhost` names are allowed (the server listens on loopback or on every address).
  public var allowsLocalhost: Bool

  /// - Parameters:
  ///   - listenHost: the address the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`, `::`, `192.0.2.7`).
  ///   - names: the configured names (any case).
  public init(listenHost: String, names: [String] = []) {
    self.names = Set(names.map { $0.lowercased() })
    let host = listenHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    allowsLocalhost = HostCheck.isLoopback(host) || host == "0.0.0.0" || host == "::" || host == "localhost"
  }

  /// Whether a request with this `Host` header value may be served; `false` for none.
  public func allows(_ hostHeader: String?) -> Bool {
    guard let host = Self.hostPart(hostHeader), !host.isEmpty else { return false }
    if Self.isIPLiteral(host) { return true }
    if allowsLocalhost, host == "localhost" || host.hasSuffix(".localhost") { return true }
    return names.contains(host)
  }

  /// The host of a `Host` header value, lower-cased, without brackets or port: `[::1]:8080` → `::1`; `nil` for
  /// none or a malformed one.
  static func hostPart(_ header: String?) -> String? {
    guard let header = header?.trimmingWhiteSpace.lowercased(), !header.isEmpty else { return nil }
    if header.hasPrefix("[") {
      guard let close = header.firstIndex(of: "]") else { return nil }
      let rest = header[header.index(after: close)...]
      guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
      return String(header[header.index(after: header.startIndex)..<close])
    }
    let parts = header.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count <= 2, parts.count == 1 || parts[1].allSatisfy(\.isNumber) else { return nil }
    return String(parts[0])
  }

  /// Whether `host` (no brackets) is an IPv4 or IPv6 literal.
  static func isIPLiteral(_ host: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
  }

  /// Whether `host` (no brackets) is a loopback address (`127.0.0.0/8`, `::1`) or `localhost`.
  public static func isLoopback(_ host: String) -> Bool {
    let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
    if host == "localhost" || host == "::1" { return true }
    var v4 = in_addr()
    guard inet_pton(AF_INET, host, &v4) == 1 else { return false }
    return UInt32(bigEndian: v4.s_addr) >> 24 == 127
  }
}
