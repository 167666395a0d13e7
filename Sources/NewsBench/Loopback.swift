import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Calls `body` with the socket address `127.0.0.1:port` and its length, for it to `bind`, `connect` or read back
/// with `getsockname` (which may change both). Returns what `body` returned, and the port the address holds after
/// it (host byte order): the ephemeral port `bind` chose when `port` was 0.
func withLoopbackAddress<Result>(
  port: UInt16, _ body: (UnsafeMutablePointer<sockaddr>, inout socklen_t) -> Result
) -> (result: Result, port: UInt16) {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let result = withUnsafeMutablePointer(to: &address) { pointer in
    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
  }
  return (result, UInt16(bigEndian: address.sin_port))
}
