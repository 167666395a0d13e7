import Foundation
import OfflineNewsModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which feed addresses a client of the sync APIs may have the server read, when the server listens beyond loopback:
/// none on the server's own machine or network. Otherwise `POST /v1/feeds` or `subscription/quickadd` would make
/// `news serve` request `http://127.0.0.1:…`, a router's page or a cloud's metadata service (`169.254.169.254`) for
/// any client that can log in, and show the answer as a feed or an error: a server-side request forgery door (OWASP
/// SSRF). On loopback only, the clients are the machine's own, and may read its feeds.
///
/// Refused: loopback (`127.0.0.0/8`, `::1`), unspecified (`0.0.0.0/8`, `::`), link-local (`169.254.0.0/16`,
/// `fe80::/10`), private (RFC 1918 `10/8`, `172.16/12`, `192.168/16`; RFC 4193 `fc00::/7`), shared address space
/// (RFC 6598 `100.64/10`), and IPv4-mapped IPv6 forms of these — whether the URL names the address or a name that
/// resolves to one. Checked on the URL given, before anything is read, and on the address the feed was finally read
/// from (after redirects: that read has happened, but nothing of it is subscribed or shown).
///
/// The reads the server starts itself — its refreshes, with their whole texts and images — are held to the same rule
/// for their redirects (``redirectRefusal(from:to:)``, `NewsServer.redirectRule`): a feed subscribed at a public
/// address that later redirects to `127.0.0.1` or `10.x` is not followed there. Not covered: a DNS answer that
/// changes to such an address after the subscription (the host is the same, so the read goes there).
enum SubscribeTarget {
  /// Why `url` may not be read for a client, or `nil` when every address its host resolves to is public. A host that
  /// does not resolve is left to the read, which fails and says so.
  static func refusal(_ url: URL) -> String? {
    guard let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased(), !host.isEmpty
    else { return nil }
    if host == "localhost" || host.hasSuffix(".localhost") { return refused(url, "localhost") }
    for address in addresses(of: host) {
      if let kind = kind(of: address) { return refused(url, "\(address.text) is \(kind)") }
    }
    return nil
  }

  /// Why a redirect from a read of `original` to `target` may not be followed, or `nil`: a redirect within the
  /// original's host is followed (a feed the owner added on the own network, `news add http://10.0.0.5/feed`, moving
  /// to https or another path), one to another host only when ``refusal(_:)`` passes it.
  static func redirectRefusal(from original: URL, to target: URL) -> String? {
    let host = { (url: URL) in url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased() }
    if let from = host(original), !from.isEmpty, from == host(target) { return nil }
    return refusal(target)
  }

  private static func refused(_ url: URL, _ why: String) -> String {
    "\(NewsQuery.shown(url)): \(why): news serve reads no address on its own machine or network for a client when it "
      + "listens beyond loopback"
  }

  /// An address as bytes (4 for IPv4, 16 for IPv6) and as text.
  struct Address {
    var bytes: [UInt8]
    var text: String
  }

  /// The addresses `host` resolves to (an IP literal: itself), by `getaddrinfo`.
  static func addresses(of host: String) -> [Address] {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
    defer { freeaddrinfo(list) }
    var found: [Address] = []
    for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
      guard let socketAddress = entry.pointee.ai_addr else { continue }
      switch Int32(socketAddress.pointee.sa_family) {
      case AF_INET:
        var v4 = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        let bytes = withUnsafeBytes(of: &v4) { Array($0) }
        found.append(Address(bytes: bytes, text: bytes.map(String.init).joined(separator: ".")))
      case AF_INET6:
        var v6 = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count))
        found.append(
          Address(bytes: bytes, text: String(decoding: text.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)))
      default: continue
      }
    }
    return found
  }

  /// What kind of non-public address `address` is, or `nil` for a public one.
  static func kind(of address: Address) -> String? {
    let b = address.bytes
    if b.count == 16 {
      // IPv4-mapped (`::ffff:a.b.c.d`): its IPv4 address decides.
      if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
        return kind(of: Address(bytes: Array(b[12..<16]), text: address.text))
      }
      if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? "loopback" : "unspecified" }
      if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return "link-local" }
      if b[0] & 0xFE == 0xFC { return "a private address (RFC 4193)" }
      return nil
    }
    guard b.count == 4 else { return nil }
    switch (b[0], b[1]) {
    case (127, _): return "loopback"
    case (0, _): return "unspecified"
    case (169, 254): return "link-local"
    case (10, _), (172, 16...31), (192, 168): return "a private address (RFC 1918)"
    case (100, 64...127): return "shared address space (RFC 6598)"
    default: return nil
    }
  }
}
