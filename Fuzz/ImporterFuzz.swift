// libFuzzer target: the mapping importer, `Importer(mapping:).run(_:into:source:)`, with every shipped mapping
// (`Config/mappings/*.json`) and every root of each, on arbitrary bytes, into an in-memory storage context.
//
// Built by scripts/fuzz.sh against the OfflineNewsImport module. The first byte of the input chooses the mapping and
// root; the rest is the payload. Properties checked, each a crash when broken:
// - importing never traps and never hangs, whatever the bytes;
// - it either returns a report or throws `ImportFailure.input` (not valid JSON, does not match the mapping); a
//   `StorageError` or any other error is a violation (a value the store refuses must become a record error);
// - a refusal happens exactly when the payload is not JSON (`JSONValue.parse` fails) or holds no array of records
//   where the mapping says;
// - the report adds up: for an entity root, inserted + updated + unchanged + duplicates + skipped + failed = the
//   records in the payload; for a join root, inserted + unchanged + failed + skipped = the records; no count is
//   negative; every failed or duplicate root record has an error.
import Foundation
import OfflineNewsImport
import OfflineNewsStorage
import Synchronization

/// Every (mapping, root) pair of the shipped mappings, in a fixed order.
private let variants: [(name: String, mapping: ImportMapping)] = {
  let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Config/mappings")
  guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter({ $0.hasSuffix(".json") })
  else { fatalError("no mappings in \(folder.path)") }
  var variants: [(String, ImportMapping)] = []
  for file in files.sorted() {
    do {
      let mapping = try ImportMapping.load(contentsOf: folder.appendingPathComponent(file))
      if mapping.roots.isEmpty {
        variants.append((file, mapping))
      } else {
        for root in mapping.roots.keys.sorted() {
          variants.append(("\(file) \(root)", try mapping.selecting(root: root)))
        }
      }
    } catch {
      fatalError("shipped mapping \(file) does not load: \(error)")
    }
  }
  guard !variants.isEmpty else { fatalError("no mappings in \(folder.path)") }
  return variants
}()

/// One in-memory storage context per variant, replaced every 1,000 inputs (so the database stays small while updates
/// of rows imported by earlier inputs are still exercised).
private let stores = Mutex<[Int: (storage: StorageContext, uses: Int)]>([:])

private func storage(for index: Int) -> StorageContext {
  stores.withLock { stores in
    if let entry = stores[index], entry.uses < 1_000 {
      stores[index] = (entry.storage, entry.uses + 1)
      return entry.storage
    }
    do {
      let storage = try StorageContext(path: ":memory:", entities: variants[index].mapping.entityDescriptions)
      stores[index] = (storage, 1)
      return storage
    } catch {
      fatalError("cannot open an in-memory store for \(variants[index].name): \(error)")
    }
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let index = Int(data[0]) % variants.count
  let (name, mapping) = variants[index]
  let payload = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
  let store = storage(for: index)
  let importer = Importer(mapping: mapping)
  let outcome = blocking { try await importer.run(payload, into: store, source: "fuzz.json") }

  // The records the payload holds, read apart from the importer's own accounting.
  var records: [JSONValue]?
  if let json = try? JSONValue.parse(payload), case .array(let items)? = json[path: mapping.records] {
    records = items
  }
  switch outcome {
  case .failure(let error):
    guard case .input(let error)? = error as? ImportFailure else { fatalError("\(name): import failed with \(error)") }
    guard records == nil else { fatalError("\(name): refused a payload with \(records?.count ?? 0) records: \(error)") }
  case .success(let report):
    guard let records else { fatalError("\(name): accepted a payload without an array of records") }
    check(report, records: records.count, name: name, isJoin: mapping.join != nil)
  }
  return 0
}

private func check(_ report: ImportReport, records: Int, name: String, isJoin: Bool) {
  let counts = [
    report.inserted, report.updated, report.unchanged, report.skipped, report.failed, report.deleted, report.duplicates,
  ]
  guard counts.allSatisfy({ $0 >= 0 }) else { fatalError("\(name): a negative count in \(report)") }
  let total =
    isJoin
    ? report.inserted + report.unchanged + report.failed + report.skipped
    : report.inserted + report.updated + report.unchanged + report.duplicates + report.skipped + report.failed
  guard total == records else {
    fatalError(
      "\(name): the report does not add up to \(records) records: inserted \(report.inserted), updated "
        + "\(report.updated), unchanged \(report.unchanged), duplicates \(report.duplicates), skipped "
        + "\(report.skipped), failed \(report.failed); failures \(report.failures)")
  }
  // Every failed record is a failure; every duplicate a warning.
  guard report.failures.count >= report.failed, report.warnings.count >= report.duplicates else {
    fatalError(
      "\(name): \(report.failed) failed, \(report.failures.count) failures; \(report.duplicates) duplicates, "
        + "\(report.warnings.count) warnings")
  }
}
