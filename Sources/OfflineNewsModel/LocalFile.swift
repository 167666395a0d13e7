import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading a whole local file, with the reason when it cannot be read (from `errno`, as `open(2)`, `fstat(2)` and
/// `read(2)` report it) and its size checked against a limit before a byte of it is read.
///
/// For example:
/// ```swift
/// let data = try LocalFile.read("/etc/news.json")               // Data
/// try LocalFile.read("/tmp")                                     // LocalFile.ReadError: "/tmp: is a directory"
/// try LocalFile.read("big.json", maxBytes: 64 << 20)             // "big.json: 143.1 MiB, more than the limit of 64 MiB"
/// ```
package enum LocalFile {
  /// Why a file could not be read: its path, and the reason in words.
  package struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path as given.
    package var path: String
    /// `no such file`, `is a directory`, `permission denied`, `143.1 MiB, more than the limit of 64 MiB`, or the
    /// system's text for any other `errno` (lowercased), e.g. `input/output error`.
    package var reason: String
    /// The `errno` of the failed call; `nil` for a file over the limit.
    package var code: Int32?
    /// The file's size in bytes when it was over the limit.
    package var size: Int64?

    /// Whether the file was over the limit (`size` is then set).
    package var isTooLarge: Bool { size != nil }

    /// `PATH: REASON`.
    package var description: String { "\(path): \(reason)" }
  }

  /// The reason for an `errno` in words: `no such file`, `is a directory`, `permission denied`, else the system's
  /// own text, lowercased (`strerror(3)`).
  package static func reason(errno code: Int32) -> String {
    switch code {
    case ENOENT: return "no such file"
    case EISDIR: return "is a directory"
    case EACCES, EPERM: return "permission denied"
    case ENOTDIR: return "a folder on its path is a file"
    default: return String(cString: strerror(code)).lowercased()
    }
  }

  /// The size of the file at `path` in bytes, without reading it (`stat(2)`).
  ///
  /// - Throws: ``ReadError`` with the reason when it cannot be examined, or is a directory.
  package static func size(_ path: String) throws(ReadError) -> Int64 {
    var status = stat()
    guard stat(path, &status) == 0 else { throw failure(path, errno: errno) }
    return try size(of: status, path)
  }

  /// The error of a call on `path` that failed with `code`.
  private static func failure(_ path: String, errno code: Int32) -> ReadError {
    ReadError(path: path, reason: reason(errno: code), code: code)
  }

  /// The size in `status`, of `path`; a directory is refused (`open(2)` opens one for reading, and `read(2)` would
  /// then fail with `EISDIR`).
  private static func size(of status: stat, _ path: String) throws(ReadError) -> Int64 {
    guard (status.st_mode & S_IFMT) != S_IFDIR else { throw failure(path, errno: EISDIR) }
    return Int64(status.st_size)
  }

  /// The whole content of the file at `path`.
  ///
  /// - Parameter maxBytes: when given, a larger file is refused by its size (`fstat(2)`) before anything is read.
  /// - Throws: ``ReadError``: the reason from `errno` (no such file, is a directory, permission denied, …), or the
  ///   file's size and the limit (``ReadError/isTooLarge``).
  package static func read(_ path: String, maxBytes: Int? = nil) throws(ReadError) -> Data {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure(path, errno: errno) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw failure(path, errno: errno) }
    let size = try Self.size(of: status, path)
    if let maxBytes, size > Int64(maxBytes) {
      throw tooLarge(path, size: size, limit: maxBytes)
    }
    var data = Data()
    if size > 0 { data.reserveCapacity(Int(size)) }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { break }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        throw failure(path, errno: code)
      }
      data.append(contentsOf: buffer[0..<count])
      // A file that grows while it is read (or a pipe, whose size fstat gives as 0) is held to the limit too.
      if let maxBytes, data.count > maxBytes {
        throw tooLarge(path, size: Int64(data.count), limit: maxBytes, atLeast: true)
      }
    }
    return data
  }

  /// The error for a file of `size` bytes over `limit`.
  package static func tooLarge(_ path: String, size: Int64, limit: Int, atLeast: Bool = false) -> ReadError {
    ReadError(
      path: path,
      reason: "\(atLeast ? "more than " : "")\(byteCount(size)), more than the limit of \(byteCount(Int64(limit)))",
      size: size)
  }

  /// A size for people, in binary units (the limits are powers of two): `812 bytes`, `14.1 KiB`, `143.1 MiB`,
  /// `64 MiB`.
  package static func byteCount(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1023.95, unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    let tenths = Int((value * 10).rounded())
    return (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + " " + units[unit]
  }
}

/// `read(2)`, named apart from ``LocalFile/read(_:maxBytes:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
  #else
    Darwin.read(descriptor, buffer, count)
  #endif
}
