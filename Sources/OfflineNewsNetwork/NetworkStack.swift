import Foundation
import OfflineNewsHTTP
import OfflineNewsModel

/// How a program makes its networks and HTTP transports: the implementations its entry point (the composition
/// root) chooses, so that the code that builds repositories, sync engines and downloads does not link them itself.
///
/// The `news` command line is built with one: `news-online` passes `NetworkStack.curl` (the
/// `OfflineNewsCurl` module: ``HTTPTransport`` over libcurl); `news` passes ``filesOnly`` and hands the commands
/// that use the network to `news-online`, so that it never loads libcurl and its TLS stack (about 30 shared
/// libraries, most of its start-up time: docs/PERFORMANCE.md, "Command-line latency").
///
/// For example:
/// ```swift
/// let stack = NetworkStack.curl                  // import OfflineNewsCurl
/// let network = stack.newsNetwork(nil, 5, .none, NewsAPIDecoder())
/// let transport = stack.httpTransport(5, .none, [])
/// ```
package struct NetworkStack: Sendable {
  /// A network for news sources: the API key with the hosts it may go to (or `nil`), the timeout per attempt in
  /// seconds, the retry policy, the decoder of its bodies.
  package var newsNetwork:
    @Sendable (_ apiKey: NewsAPIKey?, _ timeout: TimeInterval, _ retry: RetryPolicy, _ decoder: any NewsPageDecoder)
      -> any NewsNetwork
  /// A transport for any other HTTP request (a Parse sync, a feed or page download): the timeout per attempt in
  /// seconds, the retry policy, texts never to show in an error.
  package var httpTransport:
    @Sendable (_ timeout: TimeInterval, _ retry: RetryPolicy, _ secrets: [String]) -> any HTTPTransport
  /// Whether its networks and transports make HTTP requests at all: `false` for ``filesOnly``, so that a command
  /// can refuse an http(s) source up front and say how to get a program that has the network.
  package var reachesHTTP: Bool
  /// Makes this stack again with redirects refused by a rule; `nil` for a stack that makes no HTTP request.
  private var refusing: (@Sendable (@escaping RedirectTargetRule) -> NetworkStack)?

  /// - Parameters:
  ///   - newsNetwork: makes the network of news sources (see ``newsNetwork``).
  ///   - httpTransport: makes the transport of other requests (see ``httpTransport``).
  ///   - reachesHTTP: whether they make HTTP requests (see ``reachesHTTP``); `true` by default.
  ///   - refusing: makes the same stack whose networks and transports refuse the redirects a rule refuses
  ///     (``refusingRedirects(_:)``); `nil` (by default) only for a stack that makes no HTTP request.
  package init(
    newsNetwork: @escaping @Sendable (NewsAPIKey?, TimeInterval, RetryPolicy, any NewsPageDecoder) -> any NewsNetwork,
    httpTransport: @escaping @Sendable (TimeInterval, RetryPolicy, [String]) -> any HTTPTransport,
    reachesHTTP: Bool = true, refusing: (@Sendable (@escaping RedirectTargetRule) -> NetworkStack)? = nil
  ) {
    self.newsNetwork = newsNetwork
    self.httpTransport = httpTransport
    self.reachesHTTP = reachesHTTP
    self.refusing = refusing
  }

  /// This stack with every network and transport it makes refusing the redirects `rule` refuses
  /// (``RedirectTargetRule``: `news serve` beyond loopback, for the reads it starts itself); itself for a stack that
  /// makes no HTTP request.
  package func refusingRedirects(_ rule: @escaping RedirectTargetRule) -> NetworkStack { refusing?(rule) ?? self }

  /// No HTTP at all: a `file:` URL is read by ``FileNewsNetwork`` (as the libcurl network reads it too); any
  /// other request fails with a transport error saying that this program has no network. For a program that only
  /// reads files and its cache: `news` when `news-online` is not built beside it (`swift run news` builds `news`
  /// alone).
  package static let filesOnly = NetworkStack(
    newsNetwork: { _, _, _, decoder in FilesOnly(files: FileNewsNetwork(decoder: decoder)) },
    httpTransport: { _, _, _ in FilesOnly(files: FileNewsNetwork(decoder: NewsAPIDecoder())) }, reachesHTTP: false)

  /// The detail of the transport error ``filesOnly`` fails an http(s) request with.
  package static let filesOnlyDetail =
    "this program has no network: news-online, which has, is not built beside it (swift build --product news-online)"

  /// The network and transport of ``filesOnly``.
  private struct FilesOnly: NewsNetwork, HTTPTransport {
    var files: FileNewsNetwork

    static let detail = NetworkStack.filesOnlyDetail

    func fetch(_ query: NewsQuery) async throws(NewsNetworkError) -> NewsPage {
      guard query.url.isFileURL else { throw .transport(.other, detail: Self.detail) }
      return try await files.fetch(query)
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
      throw .transport(.other, detail: Self.detail)
    }
  }
}
