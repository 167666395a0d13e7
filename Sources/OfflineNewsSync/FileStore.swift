import Foundation
import OfflineNewsHTTP

/// How the files (Parse `File` values, image URLs) of one synced class are downloaded.
public struct FileDownloads: Sendable, Hashable {
  /// When files are downloaded: during the sync, or on first access.
  public enum Mode: String, Sendable, Hashable {
    /// Downloaded during the sync, after each page.
    case eager
    /// Downloaded on first access (by the package's file store); a sync only records where they are.
    case lazy
  }
  /// The keys of the objects that hold files: a Parse `File` (`{"__type":"File","name":…,"url":…}`) or a URL text.
  public var attributes: [String]
  /// When the files are downloaded.
  public var mode: Mode
  /// The largest file accepted, in bytes (default 10 MB).
  public var maxBytes: Int
  /// Downloads at once, in eager mode (default 4).
  public var concurrency: Int
  /// Accepted `Content-Type` prefixes, e.g. `image/`; empty accepts any.
  public var allowedContentTypes: [String]

  /// A download policy for the files under `attributes`; `concurrency` is at least 1, content types compare in
  /// lower case.
  public init(
    attributes: [String], mode: Mode = .lazy, maxBytes: Int = 10_000_000, concurrency: Int = 4,
    allowedContentTypes: [String] = []
  ) {
    self.attributes = attributes
    self.mode = mode
    self.maxBytes = maxBytes
    self.concurrency = max(1, concurrency)
    self.allowedContentTypes = allowedContentTypes.map { $0.lowercased() }
  }
}

/// Why a file was not stored.
package enum FileDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
  case network(URL, HTTPError)
  case status(URL, Int)
  case tooLarge(URL, bytes: Int, limit: Int)
  case contentType(URL, String?)
  case unsupportedURL(String)
  case write(URL, String)

  package var description: String {
    switch self {
    case .network(let url, let error): return "\(Self.shown(url)): \(error)"
    case .status(let url, let status): return "\(Self.shown(url)): HTTP \(status)"
    case .tooLarge(let url, let bytes, let limit):
      return "\(Self.shown(url)): \(bytes) bytes, over the \(limit)-byte limit"
    case .contentType(let url, let type): return "\(Self.shown(url)): content type \(type ?? "missing") not accepted"
    case .unsupportedURL(let text): return "\(text): not an http(s) URL"
    case .write(let url, let reason): return "\(Self.shown(url)): cannot be written: \(reason)"
    }
  }

  static func shown(_ url: URL) -> String {
    let text = url.absoluteString
    return text.count > 120 ? String(text.prefix(120)) + "…" : text
  }
}

/// Downloaded files, kept in one folder under names derived from their URLs, so that no URL — however hostile its
/// name (`../../etc/passwd`, `/`, NUL, a leading dot) — can write outside the folder.
package struct FileStore: Sendable {
  /// Where the files are.
  package let folder: URL
  package let policy: FileDownloads
  let transport: any HTTPTransport

  package init(folder: URL, policy: FileDownloads, transport: any HTTPTransport) {
    self.folder = folder.standardizedFileURL
    self.policy = policy
    self.transport = transport
  }

  /// The local file for `remote`: `<folder>/<16 hex digits of FNV-1a 64 of the URL>-<its last path component, with
  /// every character other than letters, digits, `.`, `_` and `-` replaced by `_`, no leading dot, at most 64>`.
  package func localURL(for remote: URL) -> URL {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in remote.absoluteString.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    var name = String(remote.lastPathComponent.map { allowed.contains($0) ? $0 : "_" }.prefix(64))
    while name.hasPrefix(".") { name.removeFirst() }
    let hex = String(hash, radix: 16)
    let file = String(repeating: "0", count: 16 - hex.count) + hex + (name.isEmpty ? "" : "-" + name)
    return folder.appendingPathComponent(file, isDirectory: false)
  }

  /// The local copy of `remote`, downloaded first if it is not there yet (the lazy mode).
  ///
  /// - Throws: ``FileDownloadError``: the download failed, the status is not 200, the body is over
  ///   ``FileDownloads/maxBytes`` or its `Content-Type` not accepted, or the file cannot be written. Nothing is left
  ///   behind on failure (the file is written to a temporary name and renamed).
  @discardableResult
  package func file(for remote: URL) async throws(FileDownloadError) -> URL {
    let local = localURL(for: remote)
    if FileManager.default.fileExists(atPath: local.path) { return local }
    try await download(remote, to: local)
    return local
  }

  /// Whether `remote` is already stored.
  package func isStored(_ remote: URL) -> Bool { FileManager.default.fileExists(atPath: localURL(for: remote).path) }

  private func download(_ remote: URL, to local: URL) async throws(FileDownloadError) {
    guard let scheme = remote.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw .unsupportedURL(FileDownloadError.shown(remote))
    }
    let response: HTTPResponse
    do {
      response = try await transport.get(remote, headers: [:], maxBodyBytes: policy.maxBytes)
    } catch {
      throw .network(remote, error)
    }
    if let bytes = response.bodyLimitExceeded { throw .tooLarge(remote, bytes: bytes, limit: policy.maxBytes) }
    guard response.status == 200 else { throw .status(remote, response.status) }
    if let declared = response.header("Content-Length").flatMap({ Int($0) }), declared > policy.maxBytes {
      throw .tooLarge(remote, bytes: declared, limit: policy.maxBytes)
    }
    guard response.body.count <= policy.maxBytes else {
      throw .tooLarge(remote, bytes: response.body.count, limit: policy.maxBytes)
    }
    if !policy.allowedContentTypes.isEmpty {
      let type = response.header("Content-Type")
      let lowered = type?.lowercased() ?? ""
      guard policy.allowedContentTypes.contains(where: { lowered.hasPrefix($0) }) else {
        throw .contentType(remote, type)
      }
    }
    guard local.deletingLastPathComponent().standardizedFileURL.path == folder.path else {
      throw .write(remote, "outside \(folder.path)")
    }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try response.body.write(to: local, options: .atomic)
    } catch {
      throw .write(remote, error.localizedDescription)
    }
  }
}
