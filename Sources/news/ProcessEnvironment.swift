#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process environment, read from `environ`: what `ProcessInfo.processInfo.environment` gives (an entry
/// without `=` is left out; of two entries with one name, the last wins), without initialising `ProcessInfo`, which
/// costs `news` half a millisecond or more at start (docs/PERFORMANCE.md, "Command-line latency").
func processEnvironment() -> [String: String] {
  var environment: [String: String] = [:]
  var entry = environ
  while let pointer = entry.pointee {
    let text = String(cString: pointer)
    if let equals = text.firstIndex(of: "=") {
      environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    entry += 1
  }
  return environment
}
