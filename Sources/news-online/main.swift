import Foundation
import NewsCLI
import OfflineNewsCurl
import OfflineNewsHTTP
import OfflineNewsMicroHTTPD

// `news` with the network linked in (libcurl): `news` hands it the commands that use the network
// (fetch, sync, add, serve: libmicrohttpd is linked here too) and runs the others itself, without loading libcurl (docs/PERFORMANCE.md,
// "Command-line latency"). It runs every command, so it can be run by itself too.
let status = await NewsCommandLine(
  environment: ProcessInfo.processInfo.environment, network: .curl, server: .microHTTPD
)
.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
