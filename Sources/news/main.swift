import Foundation
import NewsCLI

// The composition root's entry point: everything else lives in NewsCLI, where tests can run it.
//
// This program has no network stack: it links neither FoundationNetworking nor libcurl (and the Swift libraries
// statically), so that the commands that read the cache start in a few milliseconds. The commands that use the
// network are handed to `news-online` when it is built beside it (`swift build`); without it (`swift run news`
// builds `news` alone) they run here with file sources only. docs/PERFORMANCE.md, "Command-line latency".
let arguments = Array(CommandLine.arguments.dropFirst())
if NewsCommandLine.usesNetwork(arguments), let online = NetworkHandOff.onlineExecutable() {
  exit(NetworkHandOff.run(online, arguments))
}
let commandLine = NewsCommandLine(environment: processEnvironment(), network: .filesOnly, oneThread: true)
// Help, version and usage errors are answered synchronously: no task (and so no thread). A command runs on this
// thread, its reads included: no hop to a connection's queue and back.
switch commandLine.prepare(arguments) {
case .finished(let status): exit(status)
case .command(let command): exit(commandLine.runOnCallingThread(command))
}
