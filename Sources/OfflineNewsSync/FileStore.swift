import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

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
  package var attributes: [String]
  /// When the files are downloaded.
  package var mode: Mode
  /// The largest file accepted, in bytes (default 10 MB).
  package var maxBytes: Int
  /// Downloads at once, in eager mode (default 4).
  package var concurrency: Int
  /// Accepted `Content-Type` prefixes, e.g. `image/`; empty accepts any.
  package var allowedContentTypes: [String]
  /// The image formats accepted, told by the body's first bytes (``ImageFormat``); `nil` (the default) checks no
  /// signature. With both this and ``allowedContentTypes``, a body must pass both: the header is what the server
  /// says, the signature what it sent.
  package var imageFormats: Set<ImageFormat>?
  /// Which redirects a download follows: ``HTTPRequest/Redirects/sameOrigin`` (the default: a Parse server's files,
  /// whose requests may carry keys), or ``HTTPRequest/Redirects/anyOrigin`` for files fetched with no secret, as a
  /// page's images are (an `http` → `https` upgrade or a CDN is another origin).
  package var redirects: HTTPRequest.Redirects

  /// A download policy for the files under `attributes`; `concurrency` is at least 1, content types compare in
  /// lower case.
  public init(
    attributes: [String], mode: Mode = .lazy, maxBytes: Int = 10_000_000, concurrency: Int = 4,
    allowedContentTypes: [String] = [], imageFormats: Set<ImageFormat>? = nil,
    redirects: HTTPRequest.Redirects = .sameOrigin
  ) {
    self.attributes = attributes
    self.mode = mode
    self.maxBytes = maxBytes
    self.concurrency = max(1, concurrency)
    self.allowedContentTypes = allowedContentTypes.map { $0.lowercased() }
    self.imageFormats = imageFormats
    self.redirects = redirects
  }
}

/// Why a file was not stored.
package enum FileDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
  case network(URL, HTTPError)
  case status(URL, Int)
  case tooLarge(URL, bytes: Int, limit: Int)
  case contentType(URL, String?)
  /// The body's first bytes are not an accepted image format (``FileDownloads/imageFormats``): the format they are
  /// (`svg`, …), or `nil` when they are no image at all.
  case notAnImage(URL, ImageFormat?)
  case unsupportedURL(String)
  case write(URL, String)

  package var description: String {
    switch self {
    case .network(let url, _), .status(let url, _), .tooLarge(let url, _, _), .contentType(let url, _),
      .notAnImage(let url, _), .write(let url, _):
      return "\(Self.shown(url)): \(reason)"
    case .unsupportedURL(let text): return "\(text): \(reason)"
    }
  }

  /// What went wrong, without the file's URL (``description`` starts with it): `HTTP 404`, `svg images are not
  /// accepted`, …
  public var reason: String {
    switch self {
    case .network(_, let error): return "\(error)"
    case .status(_, let status): return "HTTP \(status)"
    case .tooLarge(_, let bytes, let limit): return "\(bytes) bytes, over the \(limit)-byte limit"
    case .contentType(_, let type): return "content type \(type ?? "missing") not accepted"
    case .notAnImage(_, let format?): return "\(format.rawValue) images are not accepted"
    case .notAnImage(_, nil): return "the bytes are not an image of an accepted format"
    case .unsupportedURL: return "not an http(s) URL"
    case .write(_, let reason): return "cannot be written: \(reason)"
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
    guard remote.isWebURL else {
      throw .unsupportedURL(FileDownloadError.shown(remote))
    }
    let response: HTTPResponse
    do {
      response = try await transport.send(
        HTTPRequest(url: remote, maxBodyBytes: policy.maxBytes, redirects: policy.redirects))
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
    if let formats = policy.imageFormats {
      let format = ImageFormat(sniffing: response.body)
      guard let format, formats.contains(format) else { throw .notAnImage(remote, format) }
    }
    guard local.deletingLastPathComponent().standardizedFileURL.path == folder.path else {
      throw .write(remote, "outside \(folder.path)")
    }
    // Written whole under a temporary name in the folder (a leading dot: never a final name, see localURL(for:)),
    // then renamed over the final name (rename(2) is atomic): a crash never leaves a part of a file under its final
    // name, and a stray temporary file is removed by the next removeFiles(keeping:).
    let temporary = folder.appendingPathComponent(".partial-\(UUID().uuidString)", isDirectory: false)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try response.body.write(to: temporary)
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw .write(remote, error.localizedDescription)
    }
    guard rename(temporary.path, local.path) == 0 else {
      let reason = String(cString: strerror(errno))
      try? FileManager.default.removeItem(at: temporary)
      throw .write(remote, reason)
    }
  }

  /// Removes every file in the folder whose name is not in `names` (files of rows deleted since, temporary files
  /// of interrupted writes); a missing folder has nothing to remove.
  ///
  /// - Returns: the names removed, sorted.
  @discardableResult
  public func removeFiles(keeping names: Set<String>) -> [String] {
    let present = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    var removed: [String] = []
    for name in present.sorted() where !names.contains(name) {
      let file = folder.appendingPathComponent(name, isDirectory: false)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue
      else { continue }
      if (try? FileManager.default.removeItem(at: file)) != nil { removed.append(name) }
    }
    return removed
  }
}
