import Foundation
import OfflineNewsHTTP

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPError {
  /// The failure a URLSession error stands for; `timeout` (seconds) is named in a timeout's detail.
  static func from(_ error: any Error, timeout: TimeInterval) -> HTTPError {
    guard let error = error as? URLError else {
      return .transport(.other, detail: String(describing: type(of: error)))
    }
    switch error.code {
    case .cannotConnectToHost: return .transport(.connectionRefused, detail: "")
    case .cannotFindHost, .dnsLookupFailed: return .transport(.hostNotFound, detail: "")
    case .timedOut: return .transport(.timedOut, detail: "no complete answer within \(formatted(timeout)) s")
    case .networkConnectionLost: return .transport(.connectionLost, detail: "the server closed the connection")
    case .badServerResponse:
      // Linux (libcurl) reports a connection closed before any response as -1011, "Empty reply from server".
      return .transport(.connectionLost, detail: "the server closed the connection without an answer")
    case .unknown where error.localizedDescription.contains("transfer closed"):
      // Linux (libcurl) reports a body cut short of its Content-Length as -1 "transfer closed with N bytes
      // remaining to read", where Apple platforms say networkConnectionLost.
      return .transport(.connectionLost, detail: "the response was cut short")
    case .notConnectedToInternet: return .transport(.notConnected, detail: "")
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
      return .transport(.secureConnectionFailed, detail: "URLError \(error.code.rawValue)")
    case .cancelled: return .transport(.other, detail: "cancelled")
    default: return .transport(.other, detail: "URLError \(error.code.rawValue)")
    }
  }
}

/// `5` for 5.0, `0.5` for 0.5.
private func formatted(_ seconds: TimeInterval) -> String {
  seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}
