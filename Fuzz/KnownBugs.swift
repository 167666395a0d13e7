// Shared by every harness (scripts/fuzz.sh compiles it with each one): the bugs already reported and pinned by a
// failing regression test, which a harness counts and steps over so that fuzzing can look past them.
//
// `FUZZ_STRICT=1` turns every known bug back into a crash, to check a fix. The counts are printed when the fuzzer
// exits, e.g. `known bug round-trip-outside-0000-9999: 434086 inputs`. No bug is stepped over today: the two that
// were (round-trip-outside-0000-9999, parallel-accepts-invalid-json) are fixed, and their checks crash again.
import Foundation
import Synchronization

private let strict = ProcessInfo.processInfo.environment["FUZZ_STRICT"] == "1"
private let hits = Mutex<[String: Int]>([:])
private let report: Void = {
  atexit {
    for (name, count) in hits.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
      FileHandle.standardError.write(Data("known bug \(name): \(count) inputs\n".utf8))
    }
  }
}()

/// Records an input that hits the known bug `name`; crashes with `message` instead when `FUZZ_STRICT=1`.
func knownBug(_ name: String, _ message: @autoclosure () -> String) {
  if strict { fatalError("known bug \(name): \(message())") }
  report
  hits.withLock { $0[name, default: 0] += 1 }
}
