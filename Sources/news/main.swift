import Foundation
import NewsCLI

// The composition root's entry point: everything else lives in NewsCLI, where tests can run it.
let status = await NewsCommandLine(environment: ProcessInfo.processInfo.environment)
  .run(Array(CommandLine.arguments.dropFirst()))
exit(status)
