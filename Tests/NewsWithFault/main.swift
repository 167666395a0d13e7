import Foundation
import NewsCLI
import OfflineNewsCurl

#if canImport(Glibc)
  import Glibc
#endif

// `news-with-fault FAULT ARGUMENT…`: runs `news ARGUMENT…` with FAULT injected through the `package` fault seams
// (CommandFaults, StorageFaults), for the crash tests. The product itself has no fault switch at all.
//
//   kill-before-commit  SIGKILL at the end of every write transaction, after its last row, right before COMMIT
//   kill-after-stage    SIGKILL right after `news sync` stages a page, before it is imported
let arguments = Array(CommandLine.arguments.dropFirst())
var commandLine = NewsCommandLine(environment: ProcessInfo.processInfo.environment, network: .curl)
switch arguments.first {
case "kill-before-commit":
  commandLine.faults.storage.beforeWriteCommit = { kill(getpid(), SIGKILL) }
case "kill-after-stage":
  commandLine.faults.afterPageStaged = { kill(getpid(), SIGKILL) }
default:
  FileHandle.standardError.write(
    Data("usage: news-with-fault kill-before-commit|kill-after-stage NEWS-ARGUMENT…\n".utf8))
  exit(64)
}
exit(await commandLine.run(Array(arguments.dropFirst())))
