import CCurl
import Foundation
import OfflineNewsHTTP
import Synchronization

/// libcurl's easy handles of one transport, kept between requests so that a connection to a host (and its TLS
/// session, its DNS answer) is used again by the next request that goes there (libcurl keeps them per handle:
/// <https://curl.se/libcurl/c/curl_easy_reset.html> leaves them as they are).
final class CurlHandles: Sendable {
  /// Idle handles, most recently used last; at most ``kept``.
  private let idle = Mutex<[Handle]>([])

  /// The most idle handles kept (a refresh of many feeds runs about this many requests at once).
  static let kept = 16

  /// An easy handle, owned by whoever holds it: the pool or the one request using it.
  struct Handle: @unchecked Sendable {
    // @unchecked: a handle is used by one thread at a time (taken from the pool, used, given back).
    let raw: UnsafeMutableRawPointer
  }

  /// libcurl's global initialisation, once per process before any handle (thread-safe since libcurl 7.84).
  private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

  /// An idle handle, reset to libcurl's defaults, or a new one; `nil` when libcurl cannot make one.
  func take() -> Handle? {
    guard Self.initialised else { return nil }
    if let handle = idle.withLock({ $0.popLast() }) {
      curl_easy_reset(handle.raw)
      return handle
    }
    return curl_easy_init().map { Handle(raw: $0) }
  }

  /// Gives `handle` back for a later request (or closes it when enough are idle).
  func give(_ handle: Handle) {
    let extra = idle.withLock { idle -> Handle? in
      guard idle.count < Self.kept else { return handle }
      idle.append(handle)
      return nil
    }
    if let extra { curl_easy_cleanup(extra.raw) }
  }

  deinit {
    for handle in idle.withLock({ $0 }) { curl_easy_cleanup(handle.raw) }
  }
}

/// One HTTP `GET` exchange on an easy handle, run to its end on the calling thread (`curl_easy_perform`): the
/// status, the header fields and the body of the one response, redirects not followed. libcurl waits for the socket
/// in `poll(2)`, so a thread waiting for a slow server uses no CPU (URLSession on Linux kept a write source armed on
/// the connected socket and woke about 2,400 times a second while it waited).
struct CurlExchange {
  /// What came back.
  struct Response {
    var status: Int
    /// Header fields in the order received (names as sent); repeated names are joined by the caller.
    var headers: [(name: String, value: String)]
    var body: Data
    /// The bytes read, or the `Content-Length` announced, when the body went over the cap (the body is then empty).
    var bodyLimitExceeded: Int?
  }

  /// Why no response came back: libcurl's code, the system's `errno` for a failed connection, libcurl's text.
  struct Failure: Error {
    var code: CURLcode
    var systemErrno: Int
    var message: String
  }

  var url: URL
  /// Set when the request's task is cancelled: the transfer is then aborted within about a second.
  var cancel: CancelSignal
  /// `Name: value` lines, `User-Agent` among them.
  var headers: [String: String]
  /// The time left for the exchange, in milliseconds (connection included).
  var timeoutMilliseconds: Int
  var maxBodyBytes: Int?

  /// The certificate authorities' file the environment names (`CURL_CA_BUNDLE`, else `SSL_CERT_FILE`), read once.
  static let authorityFile = environment("CURL_CA_BUNDLE") ?? environment("SSL_CERT_FILE")
  /// The certificate authorities' folder the environment names (`SSL_CERT_DIR`), read once.
  static let authorityFolder = environment("SSL_CERT_DIR")

  /// The value of the environment variable `name`, unless empty.
  static func environment(_ name: String) -> String? {
    guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
    return value
  }

  /// Runs the exchange on `handle` (reset); blocks the calling thread until it ends or its time is up.
  func perform(on handle: CurlHandles.Handle) -> Result<Response, Failure> {
    let raw = handle.raw
    let buffer = TransferBuffer(handle: raw, maxBytes: maxBodyBytes, cancel: cancel)
    var list: UnsafeMutablePointer<curl_slist>?
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      // An empty value is sent as `Name;` (libcurl's rule for an empty header), not dropped; a value's octets are
      // `HTTPFieldText`'s (ISO-8859-1), so that a validator goes back byte for byte as it came.
      var line =
        Array(name.utf8) + (value.isEmpty ? [UInt8(ascii: ";")] : Array(": ".utf8) + HTTPFieldText.octets(value))
      line.append(0)
      let appended = line.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
      }
      list = appended
    }
    defer { curl_slist_free_all(list) }
    let context = Unmanaged.passUnretained(buffer).toOpaque()
    news_curl_set_string(raw, CURLOPT_URL, url.absoluteString)
    news_curl_set_string(raw, CURLOPT_PROTOCOLS_STR, "http,https")
    news_curl_set_long(raw, CURLOPT_NOSIGNAL, 1)
    // The certificate authorities trusted: the system's, or those the environment names as curl's own command does
    // (`CURL_CA_BUNDLE`, then OpenSSL's `SSL_CERT_FILE` and `SSL_CERT_DIR`), for a private authority.
    if let file = Self.authorityFile { news_curl_set_string(raw, CURLOPT_CAINFO, file) }
    if let folder = Self.authorityFolder { news_curl_set_string(raw, CURLOPT_CAPATH, folder) }
    news_curl_set_long(raw, CURLOPT_FOLLOWLOCATION, 0)
    // Every encoding libcurl decodes (gzip, deflate, brotli as built), decoded before the body reaches the buffer.
    news_curl_set_string(raw, CURLOPT_ACCEPT_ENCODING, "")
    news_curl_set_long(raw, CURLOPT_TIMEOUT_MS, max(1, timeoutMilliseconds))
    news_curl_set_long(raw, CURLOPT_CONNECTTIMEOUT_MS, max(1, timeoutMilliseconds))
    news_curl_set_pointer(raw, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
    news_curl_set_data_function(raw, CURLOPT_WRITEFUNCTION, curlWriteBody)
    news_curl_set_pointer(raw, CURLOPT_WRITEDATA, context)
    news_curl_set_data_function(raw, CURLOPT_HEADERFUNCTION, curlWriteHeader)
    news_curl_set_pointer(raw, CURLOPT_HEADERDATA, context)
    news_curl_set_progress_function(raw, curlProgress)
    news_curl_set_pointer(raw, CURLOPT_XFERINFODATA, context)
    let code = withExtendedLifetime(buffer) { curl_easy_perform(raw) }
    let status = Int(news_curl_info_long(raw, CURLINFO_RESPONSE_CODE))
    if let exceeded = buffer.exceeded {
      return .success(
        Response(status: status, headers: buffer.headers, body: Data(), bodyLimitExceeded: exceeded))
    }
    guard code == CURLE_OK else {
      let text = curl_easy_strerror(code).map { String(cString: $0) } ?? ""
      return .failure(
        Failure(code: code, systemErrno: Int(news_curl_info_long(raw, CURLINFO_OS_ERRNO)), message: text))
    }
    return .success(
      Response(
        status: status, headers: buffer.headers, body: buffer.body, bodyLimitExceeded: nil))
  }
}

/// What libcurl's callbacks collect for one exchange (used on the exchange's thread only).
private final class TransferBuffer {
  let handle: UnsafeMutableRawPointer
  let maxBytes: Int?
  let cancel: CancelSignal
  var body = Data()
  var headers: [(name: String, value: String)] = []
  var exceeded: Int?

  init(handle: UnsafeMutableRawPointer, maxBytes: Int?, cancel: CancelSignal) {
    self.handle = handle
    self.maxBytes = maxBytes
    self.cancel = cancel
  }

  /// The header block has ended: `false` (stop the transfer) when its `Content-Length` announces more than the cap.
  func headersEnded() -> Bool {
    guard let maxBytes else { return true }
    let status = news_curl_info_long(handle, CURLINFO_RESPONSE_CODE)
    // An interim `1xx` is followed by the real response; a redirect's body is not the answer's.
    guard status >= 200, !RedirectRule.followed.contains(Int(status)) else { return true }
    let announced = news_curl_info_offset(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
    guard announced > maxBytes else { return true }
    exceeded = Int(announced)
    return false
  }

  /// Appends a chunk of the body; `false` (stop the transfer) when the body goes over the cap with it.
  func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
    if let maxBytes, body.count + bytes.count > maxBytes {
      exceeded = body.count + bytes.count
      body = Data()
      return false
    }
    body.append(contentsOf: bytes)
    return true
  }

  /// One header line as libcurl hands it (the status line, a field, a folded continuation, or the blank end).
  func header(_ line: UnsafeRawBufferPointer) -> Bool {
    var end = line.count
    while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
    // One scalar per octet (`HTTPFieldText`): a value that is not UTF-8 is kept, and sent back, as it came.
    let text = HTTPFieldText.text(UnsafeRawBufferPointer(rebasing: line[0..<end]))
    if text.hasPrefix("HTTP/") {
      headers = []  // a new response: an interim `1xx` is over
      return true
    }
    if text.isEmpty { return headersEnded() }
    if let first = text.first, first == " " || first == "\t", !headers.isEmpty {
      // An obsolete folded line continues the previous field (RFC 9112 §5.2).
      headers[headers.count - 1].value += " " + HTTPFieldText.trimmingOWS(text)
      return true
    }
    guard let colon = text.firstIndex(of: ":") else { return true }
    let name = HTTPFieldText.trimmingOWS(text[..<colon])
    let value = HTTPFieldText.trimmingOWS(text[text.index(after: colon)...])
    if !name.isEmpty { headers.append((name, value)) }
    return true
  }
}

/// The type of libcurl's `CURLOPT_WRITEFUNCTION` and `CURLOPT_HEADERFUNCTION`: `(bytes, 1, count, context)`.
private typealias CurlDataFunction =
  @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?)
  -> Int

/// libcurl's `CURLOPT_WRITEFUNCTION`: the body's bytes into the exchange's ``TransferBuffer``.
private let curlWriteBody: CurlDataFunction = { pointer, size, count, context in
  guard let context else { return 0 }
  let buffer = Unmanaged<TransferBuffer>.fromOpaque(context).takeUnretainedValue()
  return buffer.append(UnsafeRawBufferPointer(start: pointer, count: size * count)) ? size * count : 0
}

/// libcurl's `CURLOPT_XFERINFOFUNCTION`: non-zero (abort) once the request's task is cancelled.
private typealias CurlProgressFunction =
  @convention(c) (
    UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t
  ) -> Int32

/// libcurl's `CURLOPT_XFERINFOFUNCTION` (see ``CurlProgressFunction``).
private let curlProgress: CurlProgressFunction = { context, _, _, _, _ in
  guard let context else { return 0 }
  return Unmanaged<TransferBuffer>.fromOpaque(context).takeUnretainedValue().cancel.isCancelled ? 1 : 0
}

/// libcurl's `CURLOPT_HEADERFUNCTION`: each header line into the exchange's ``TransferBuffer``.
private let curlWriteHeader: CurlDataFunction = { pointer, size, count, context in
  guard let context else { return 0 }
  let buffer = Unmanaged<TransferBuffer>.fromOpaque(context).takeUnretainedValue()
  return buffer.header(UnsafeRawBufferPointer(start: pointer, count: size * count)) ? size * count : 0
}

extension HTTPError {
  /// The failure a libcurl exchange stands for; `timeout` (seconds) is named in a timeout's detail.
  static func from(_ failure: CurlExchange.Failure, timeout: TimeInterval) -> HTTPError {
    let code = failure.code
    switch code {
    case CURLE_ABORTED_BY_CALLBACK:
      return .cancelled
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
      return .transport(.hostNotFound, detail: "")
    case CURLE_COULDNT_CONNECT:
      switch Int32(failure.systemErrno) {
      case ECONNREFUSED: return .transport(.connectionRefused, detail: "")
      case ETIMEDOUT: return .timedOut(after: timeout)
      case ENETUNREACH, EHOSTUNREACH, ENETDOWN: return .transport(.notConnected, detail: "")
      default: return .transport(.other, detail: failure.message)
      }
    case CURLE_OPERATION_TIMEDOUT:
      return .timedOut(after: timeout)
    case CURLE_GOT_NOTHING:
      return .transport(.connectionLost, detail: "the server closed the connection without an answer")
    case CURLE_PARTIAL_FILE:
      return .transport(.connectionLost, detail: "the response was cut short")
    case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
      return .transport(.connectionLost, detail: "the server closed the connection")
    case CURLE_PEER_FAILED_VERIFICATION:
      return .transport(.secureConnectionFailed, detail: "the server's certificate is not trusted")
    case CURLE_SSL_CONNECT_ERROR:
      return .transport(.secureConnectionFailed, detail: "the TLS handshake failed")
    case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
      CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
      CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED:
      return .transport(.secureConnectionFailed, detail: failure.message)
    default:
      return .transport(.other, detail: "\(failure.message) (curl \(code.rawValue))")
    }
  }
}

/// Whether the task of a request was cancelled, for the thread that runs its transfer.
final class CancelSignal: Sendable {
  private let flag = Atomic<Bool>(false)

  var isCancelled: Bool { flag.load(ordering: .relaxed) }

  func cancel() { flag.store(true, ordering: .relaxed) }
}

extension HTTPError {
  /// The request's task was cancelled (never retried: ``HTTPError/isRetryable``).
  static let cancelled = HTTPError.transport(.other, detail: "cancelled")

  /// No complete answer within the attempt's `timeout` seconds.
  static func timedOut(after timeout: TimeInterval) -> HTTPError {
    .transport(.timedOut, detail: "no complete answer within \(formatted(timeout)) s")
  }
}

/// `5` for 5.0, `0.5` for 0.5.
private func formatted(_ seconds: TimeInterval) -> String {
  seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}
