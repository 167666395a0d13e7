import Foundation
import OfflineNewsModel
import OfflineNewsNetwork
import Synchronization

/// A network for one refresh of many sources (``NewsRepository/refresh(_:options:progress:)``, `news fetch --all`) that
/// stops asking an origin (scheme, host, port: RFC 6454) once a request to it has failed in a way that says the
/// origin cannot be reached — connection refused, host not found, not connected, TLS failure — after that request's
/// own retries. A time-out says less: one slow feed times out on a host whose other feeds answer at once. So time-outs
/// mark an origin only when two requests to it timed out and none was answered in this run (a black-holed host);
/// an origin that answered once is never marked by time-outs. Later requests to the origin fail at
/// once with the same kind of failure, `connection refused (not asked: <origin> failed earlier in this run)`, so the repository
/// serves their cached rows with that error as it would have after asking.
///
/// Why: a subscription list has many feeds per host. With the host down (or the machine offline), asking each feed
/// again, each with its retries, made `fetch --all` of 72 feeds on one refused host take 14 s instead of under one.
/// Any other failure (an HTTP status, a bad body, a connection lost mid-response) concerns one feed and marks
/// nothing. Requests already in flight to the origin when it fails finish as they would.
package final class UnreachableOrigins: NewsNetwork {
  private let base: any NewsNetwork
  /// The first failure of each origin found unreachable in this run.
  private let failures = Mutex<[String: NewsNetworkError]>([:])
  /// Per origin: how many requests timed out, or `-1` once one was answered (time-outs then mark nothing).
  private let timeouts = Mutex<[String: Int]>([:])
  /// How many requests to an origin that never answered must time out to mark it.
  package static let timeoutsToMark = 2

  package init(_ base: any NewsNetwork) {
    self.base = base
  }

  /// The failures that say the origin itself cannot be reached (not one response's fault).
  package static func isUnreachable(_ failure: NewsNetworkError.TransportFailure) -> Bool {
    switch failure {
    case .connectionRefused, .hostNotFound, .notConnected, .secureConnectionFailed: true
    case .timedOut, .connectionLost, .other: false
    }
  }

  /// `https://example.org:443`: the origin of an http(s) URL, `nil` for a file.
  package static func origin(of url: URL) -> String? {
    guard url.isWebURL, let scheme = url.scheme?.lowercased(), let host = url.host else {
      return nil
    }
    return "\(scheme)://\(host.lowercased()):\(url.port ?? (scheme == "https" ? 443 : 80))"
  }

  package func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
    try check(query.url)
    do {
      let page = try await base.fetch(query)
      answered(query.url)
      return page
    } catch {
      note(error, query.url)
      throw error
    }
  }

  package func fetch(_ request: NewsRequest) async throws(NewsNetworkError) -> NewsResponse {
    try check(request.query.url)
    do {
      let response = try await base.fetch(request)
      answered(request.query.url)
      return response
    } catch {
      note(error, request.query.url)
      throw error
    }
  }

  private func check(_ url: URL) throws(NewsNetworkError) {
    guard let origin = Self.origin(of: url), let earlier = failures.withLock({ $0[origin] }),
      case .transport(let failure, _) = earlier
    else { return }
    throw .transport(failure, detail: "not asked: \(origin) failed earlier in this run")
  }

  private func answered(_ url: URL) {
    guard let origin = Self.origin(of: url) else { return }
    timeouts.withLock { $0[origin] = -1 }
  }

  private func note(_ error: NewsNetworkError, _ url: URL) {
    guard case .transport(let failure, _) = error, let origin = Self.origin(of: url) else {
      // An HTTP status or a body: the origin answered.
      answered(url)
      return
    }
    if failure == .timedOut {
      let marks = timeouts.withLock { counts -> Bool in
        let count = counts[origin, default: 0]
        // An origin that answered in this run is up: one feed of it is slow.
        guard count >= 0 else { return false }
        counts[origin] = count + 1
        return count + 1 >= Self.timeoutsToMark
      }
      guard marks else { return }
    } else if !Self.isUnreachable(failure) {
      return
    }
    failures.withLock { if $0[origin] == nil { $0[origin] = error } }
  }
}
