// swift-tools-version:6.0
// The module graph is the target dependencies below; docs/ARCHITECTURE.md shows it as a table generated from this
// file, and CI fails when they differ or when a file imports one of our modules that is not a direct dependency of
// its target (scripts/check-module-graph.sh).
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny")

]

let package = Package(
  name: "OfflineNews",
  platforms: [.macOS(.v15)],
  products: [
    // The library an app adds: the repository and the URLSession network, and every module whose types their API
    // uses (no module re-exports another: an app imports the ones it uses, as each of our files does).
    .library(
      name: "OfflineNews",
      targets: [
        "OfflineNews", "OfflineNewsCurl", "OfflineNewsModel", "OfflineNewsStorage", "OfflineNewsImport",
        "OfflineNewsHTTP", "OfflineNewsNetwork", "OfflineNewsSync", "OfflineNewsFeeds", "OfflineNewsHTML",
      ]),
    .executable(name: "news", targets: ["news"]),
    .executable(name: "news-online", targets: ["news-online"]),
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
    // The system ncurses with wide characters (Debian: libncurses-dev), for `news read` only (NewsTerminal). Its
    // headers give the types and constants; the library is loaded with dlopen when `news read` starts, not linked,
    // so that every other command of `news` starts without loading it (docs/PERFORMANCE.md, "Command-line latency").
    // No pkgConfig: ncursesw.pc's cflags (-D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600) are flags SwiftPM refuses with a
    // warning, and Debian's /usr/include/curses.h is the wide-character header.
    .systemLibrary(
      name: "CNcurses",
      providers: [.apt(["libncurses-dev"]), .brew(["ncurses"])]
    ),
    // GNU libmicrohttpd (Debian: libmicrohttpd-dev), the HTTP/1.1 server of `news serve`: only
    // OfflineNewsMicroHTTPD imports it, and only `news-online` links it (`news` hands `serve` to it).
    .systemLibrary(
      name: "CMicroHTTPD",
      pkgConfig: "libmicrohttpd",
      providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
    ),
    // libcurl (Debian: libcurl4-openssl-dev), the HTTP client of OfflineNewsCurl's transport: only that module
    // imports it, and only `news-online` links it (`news` hands every command that needs the network to it).
    .systemLibrary(
      name: "CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
    ),
    // libsodium (Debian: libsodium-dev): argon2id password hashes, random tokens, constant-time comparison.
    .systemLibrary(
      name: "CSodium",
      pkgConfig: "libsodium",
      providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
    ),
    // Value types shared by every layer: Article, Timestamp (RFC 3339 parsing), Query.
    .target(name: "OfflineNewsModel", swiftSettings: strict),
    // The storage context: a thin SQLite layer (connection, statements, errors, migrations) and the article store.
    .target(name: "OfflineNewsStorage", dependencies: ["CSQLite", "OfflineNewsModel"], swiftSettings: strict),
    // The general JSON → store importer: declarative mappings, identity and upsert, relationships, reports.
    .target(
      name: "OfflineNewsImport", dependencies: ["OfflineNewsModel", "OfflineNewsStorage"], swiftSettings: strict),
    // HTTP without a transport: the HTTPTransport protocol, requests, responses, errors, retries with Retry-After,
    // validators, redaction of secrets, the timeout rule. Used by NewsAPI, feeds, Parse sync and page downloads.
    .target(name: "OfflineNewsHTTP", dependencies: ["OfflineNewsModel"], swiftSettings: strict),
    // The news network: the NewsNetwork protocol, NewsAPI v2 decoding, files, NetworkStack (how a program makes its
    // networks).
    .target(name: "OfflineNewsNetwork", dependencies: ["OfflineNewsModel", "OfflineNewsHTTP"], swiftSettings: strict),
    // The one HTTP transport, over libcurl (whole-request deadline, body caps, same-origin redirects), and the
    // NewsAPI client over it: the only module that imports libcurl (with its TLS stack about 30 shared libraries),
    // apart so that a program that does not use the network does not load it (`news`).
    .target(
      name: "OfflineNewsCurl",
      dependencies: ["CCurl", "OfflineNewsModel", "OfflineNewsHTTP", "OfflineNewsNetwork", "OfflineNews"],
      swiftSettings: strict),
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
    .target(name: "OfflineNewsHTML", dependencies: ["CLibXML2", "OfflineNewsModel"], swiftSettings: strict),
    // The offline-first NewsRepository, built from a storage context and a network.
    .target(
      name: "OfflineNews",
      dependencies: [
        "OfflineNewsModel", "OfflineNewsStorage", "OfflineNewsImport", "OfflineNewsHTTP", "OfflineNewsNetwork",
        "OfflineNewsSync", "OfflineNewsFeeds", "OfflineNewsHTML",
      ],
      swiftSettings: strict
    ),
    // `news serve` above its transport: the Miniflux API v1, the Google Reader API and the web reader as
    // ServerHandlers over a NewsRepository, with their identifiers, authentication and sanitising.
    .target(
      name: "OfflineNewsServer",
      dependencies: [
        "OfflineNews", "OfflineNewsModel", "OfflineNewsHTTP", "CSodium", "OfflineNewsHTML", "OfflineNewsStorage",
      ],
      swiftSettings: strict),
    // The server transport: GNU libmicrohttpd turning connections into ServerRequests, within ServerLimits.
    .target(name: "OfflineNewsMicroHTTPD", dependencies: ["CMicroHTTPD", "OfflineNewsHTTP"], swiftSettings: strict),
    // The terminal `news read` draws on: ncurses behind a few calls (lines in, keys and signals out). It knows no
    // news; nothing of the library depends on it.
    .target(name: "NewsTerminal", dependencies: ["CNcurses"], swiftSettings: strict),
    // The `news` command line: configuration, argument parsing, commands, output. The BuildCommit plugin writes
    // the commit `news --version` prints before each build (scripts/build-commit.sh: git when the package is a
    // checkout, else NEWS_COMMIT or a `git archive`'s scripts/commit.txt, else "unknown commit"; no network).
    .target(
      name: "NewsCLI",
      dependencies: [
        "OfflineNews", "OfflineNewsFeeds", "OfflineNewsHTML", "NewsTerminal", "OfflineNewsHTTP", "OfflineNewsImport",
        "OfflineNewsModel", "OfflineNewsNetwork", "OfflineNewsStorage", "OfflineNewsSync", "OfflineNewsServer",
      ],
      swiftSettings: strict,
      plugins: ["BuildCommit"]),
    .plugin(name: "BuildCommit", capability: .buildTool()),
    // The composition root's entry point, without the network: it hands fetch, sync and add to `news-online` when
    // that is built beside it, and reads file sources itself otherwise (`swift run news fetch` builds only `news`).
    // It must not depend on OfflineNewsCurl, even through another module, and links the Swift libraries
    // statically: it starts in a few milliseconds instead of about 20 (docs/PERFORMANCE.md, "Command-line latency").
    .executableTarget(
      name: "news", dependencies: ["NewsCLI"],
      swiftSettings: strict + [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))],
      linkerSettings: [
        .unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xclang-linker", "-no-pie"], .when(platforms: [.linux]))
      ]),
    // The same command line with the URLSession network: runs the commands that use the network. A release build
    // links it statically like `news` (10 ms to start instead of 20: docs/PERFORMANCE.md); FoundationNetworking's
    // static library then links the system libcurl by name, which needs `libcurl4-openssl-dev`. (A debug build
    // stays dynamic: its static link misses the toolchain's CFURLSessionInterface.)
    .executableTarget(
      name: "news-online",
      dependencies: ["NewsCLI", "OfflineNewsCurl", "OfflineNewsMicroHTTPD", "OfflineNewsHTTP"],
      swiftSettings: strict + [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
      linkerSettings: [
        .unsafeFlags(
          ["-static-stdlib", "-use-ld=lld", "-Xclang-linker", "-no-pie"],
          .when(platforms: [.linux], configuration: .release))
      ]),
    // The benchmark (docs/PERFORMANCE.md): `swift run -c release news-bench`.
    .executableTarget(
      name: "news-bench",
      dependencies: [
        "CSQLite", "OfflineNews", "OfflineNewsHTML", "OfflineNewsCurl", "OfflineNewsImport", "OfflineNewsModel",
        "OfflineNewsNetwork", "OfflineNewsStorage", "OfflineNewsServer", "OfflineNewsMicroHTTPD", "OfflineNewsHTTP",
        "PTYSupport",
      ],
      path: "Sources/NewsBench", swiftSettings: strict),

    // Pseudo-terminals (openpty), for the terminal tests and `news-bench --read`: no part of the library or of `news`.
    .target(name: "PTYSupport", swiftSettings: strict),
    .target(name: "TestSupport", dependencies: ["PTYSupport"], path: "Tests/TestSupport", swiftSettings: strict),
    // Prints what FeedParser reads of feed files as JSON, for scripts/feedparser-conformance.sh.
    .executableTarget(
      name: "feed-dump", dependencies: ["OfflineNewsFeeds"], path: "Tests/FeedDump", swiftSettings: strict),
    // `news` with a crash injected through the package-only fault seams, for the crash-safety tests.
    .executableTarget(
      name: "news-with-fault", dependencies: ["NewsCLI", "OfflineNewsCurl"], path: "Tests/NewsWithFault",
      swiftSettings: strict),
    .testTarget(name: "OfflineNewsModelTests", dependencies: ["OfflineNewsModel", "TestSupport"]),
    .testTarget(
      name: "OfflineNewsStorageTests", dependencies: ["OfflineNewsStorage", "TestSupport", "OfflineNewsModel"]),
    .testTarget(
      name: "OfflineNewsHTTPTests", dependencies: ["OfflineNewsHTTP", "TestSupport", "OfflineNewsCurl"]),
    .testTarget(
      name: "OfflineNewsNetworkTests",
      dependencies: [
        "OfflineNewsNetwork", "TestSupport", "OfflineNewsCurl", "OfflineNewsHTTP", "OfflineNewsModel",
      ]),
    .testTarget(
      name: "OfflineNewsImportTests",
      dependencies: ["OfflineNewsImport", "TestSupport", "OfflineNewsModel", "OfflineNewsStorage"]),
    .testTarget(
      name: "OfflineNewsTests",
      dependencies: [
        "OfflineNews", "TestSupport", "OfflineNewsCurl", "OfflineNewsFeeds", "OfflineNewsHTML", "OfflineNewsHTTP",
        "OfflineNewsImport", "OfflineNewsModel", "OfflineNewsNetwork", "OfflineNewsStorage", "OfflineNewsSync",
      ]),
    .testTarget(
      name: "OfflineNewsFeedsTests",
      dependencies: ["OfflineNewsFeeds", "OfflineNewsHTML", "TestSupport", "OfflineNewsModel"]),
    .testTarget(
      name: "OfflineNewsSyncTests",
      dependencies: [
        "OfflineNewsSync", "TestSupport", "OfflineNewsCurl", "OfflineNewsHTTP", "OfflineNewsImport",
        "OfflineNewsModel", "OfflineNewsStorage",
      ]),
    .testTarget(name: "OfflineNewsHTMLTests", dependencies: ["OfflineNewsHTML", "TestSupport"]),
    .testTarget(
      name: "OfflineNewsServerTests",
      dependencies: [
        "OfflineNewsServer", "OfflineNewsMicroHTTPD", "OfflineNews", "TestSupport", "OfflineNewsHTML",
        "OfflineNewsHTTP", "OfflineNewsModel", "OfflineNewsNetwork", "OfflineNewsStorage", "OfflineNewsCurl",
      ]),
    .testTarget(
      name: "NewsCLITests",
      dependencies: [
        "NewsCLI", "OfflineNewsHTML", "TestSupport", "OfflineNewsCurl", "NewsTerminal", "OfflineNews",
        "OfflineNewsFeeds", "OfflineNewsModel", "OfflineNewsNetwork", "OfflineNewsStorage", "OfflineNewsSync",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
