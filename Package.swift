// swift-tools-version:6.0
// The dependency arrows of the architecture (docs/ARCHITECTURE.md) are the target dependencies below:
//
//   CSQLite ← OfflineNewsStorage ← OfflineNewsImport ←┐
//   OfflineNewsModel ←────────────────────────────────┼─ OfflineNews (NewsRepository) ← NewsCLI ← news
//   (Model, HTTP) ← OfflineNewsNetwork ←──────────────┤
//   (Storage, Import, HTTP) ← OfflineNewsSync ←───────┤
//   OfflineNewsHTTP ←─────────────────────────────────┘
//   (CLibXML2, Model, OfflineNewsHTML) ← OfflineNewsFeeds ← NewsCLI (subscriptions: news add, remove, sources --opml, import OPML)
//   CLibXML2 ← OfflineNewsHTML ← OfflineNews, NewsCLI, news-bench
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny")

]

let package = Package(
  name: "OfflineNews",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "OfflineNews", targets: ["OfflineNews"]),
    .executable(name: "news", targets: ["news"]),
    .executable(name: "news-bench", targets: ["news-bench"]),
  ],
  targets: [
    // The system SQLite (Debian: libsqlite3-dev), imported through a module map and a shim header.
    .systemLibrary(
      name: "CSQLite",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    // The system libxml2 (Debian: libxml2-dev): XML with recover mode and encodings, and the HTML parser.
    .systemLibrary(
      name: "CLibXML2",
      pkgConfig: "libxml-2.0",
      providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
    ),
    // Value types shared by every layer: Article, Timestamp (RFC 3339 parsing), Query.
    .target(name: "OfflineNewsModel", swiftSettings: strict),
    // The storage context: a thin SQLite layer (connection, statements, errors, migrations) and the article store.
    .target(name: "OfflineNewsStorage", dependencies: ["CSQLite", "OfflineNewsModel"], swiftSettings: strict),
    // The general JSON → store importer: declarative mappings, identity and upsert, relationships, reports.
    .target(
      name: "OfflineNewsImport", dependencies: ["OfflineNewsModel", "OfflineNewsStorage"], swiftSettings: strict),
    // HTTP: the one URLSession transport (whole-request deadline, retries with Retry-After, redaction of secrets, body
    // caps, same-origin redirects, conditional GETs), used by NewsAPI, feeds, Parse sync and page downloads. The only
    // module that imports FoundationNetworking.
    .target(name: "OfflineNewsHTTP", swiftSettings: strict),
    // The news network: the NewsNetwork protocol, NewsAPI v2 decoding, the NewsAPI client over HTTP, files.
    .target(name: "OfflineNewsNetwork", dependencies: ["OfflineNewsModel", "OfflineNewsHTTP"], swiftSettings: strict),
    // Feeds: RSS, RSS 1.0 (RDF) and Atom parsed with libxml2, format sniffing, OPML, feed discovery in HTML pages.
    .target(
      name: "OfflineNewsFeeds", dependencies: ["CLibXML2", "OfflineNewsModel", "OfflineNewsHTML"], swiftSettings: strict
    ),
    // The Parse Server sync engine: cursors, durable staged pages, the mapping importer, file downloads.
    .target(
      name: "OfflineNewsSync",
      dependencies: ["OfflineNewsModel", "OfflineNewsStorage", "OfflineNewsImport", "OfflineNewsHTTP"],
      swiftSettings: strict
    ),
    // HTML on libxml2's HTML parser: documents and nodes, text for the terminal, the readable article of a page.
    .target(name: "OfflineNewsHTML", dependencies: ["CLibXML2"], swiftSettings: strict),
    // The offline-first NewsRepository, built from a storage context and a network.
    .target(
      name: "OfflineNews",
      dependencies: [
        "OfflineNewsModel", "OfflineNewsStorage", "OfflineNewsImport", "OfflineNewsHTTP", "OfflineNewsNetwork",
        "OfflineNewsSync", "OfflineNewsFeeds", "OfflineNewsHTML",
      ],
      swiftSettings: strict
    ),
    // The `news` command line: configuration, argument parsing, commands, output.
    .target(
      name: "NewsCLI", dependencies: ["OfflineNews", "OfflineNewsFeeds", "OfflineNewsHTML"], swiftSettings: strict),
    // The composition root's entry point.
    .executableTarget(name: "news", dependencies: ["NewsCLI"], swiftSettings: strict),
    // The benchmark (docs/PERFORMANCE.md): `swift run -c release news-bench`.
    .executableTarget(
      name: "news-bench", dependencies: ["OfflineNews", "OfflineNewsHTML"], path: "Sources/NewsBench",
      swiftSettings: strict),

    .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
    // `news` with a crash injected through the package-only fault seams, for the crash-safety tests.
    .executableTarget(
      name: "news-with-fault", dependencies: ["NewsCLI"], path: "Tests/NewsWithFault", swiftSettings: strict),
    .testTarget(name: "OfflineNewsModelTests", dependencies: ["OfflineNewsModel", "TestSupport"]),
    .testTarget(name: "OfflineNewsStorageTests", dependencies: ["OfflineNewsStorage", "TestSupport"]),
    .testTarget(name: "OfflineNewsHTTPTests", dependencies: ["OfflineNewsHTTP", "TestSupport"]),
    .testTarget(name: "OfflineNewsNetworkTests", dependencies: ["OfflineNewsNetwork", "TestSupport"]),
    .testTarget(name: "OfflineNewsImportTests", dependencies: ["OfflineNewsImport", "TestSupport"]),
    .testTarget(name: "OfflineNewsTests", dependencies: ["OfflineNews", "TestSupport"]),
    .testTarget(name: "OfflineNewsFeedsTests", dependencies: ["OfflineNewsFeeds", "TestSupport"]),
    .testTarget(name: "OfflineNewsSyncTests", dependencies: ["OfflineNewsSync", "TestSupport"]),
    .testTarget(name: "OfflineNewsHTMLTests", dependencies: ["OfflineNewsHTML", "TestSupport"]),
    .testTarget(name: "NewsCLITests", dependencies: ["NewsCLI", "OfflineNewsHTML", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
