import Foundation
import OfflineNewsImport
import OfflineNewsModel
import OfflineNewsNetwork
import OfflineNewsStorage

/// Sync of a feed that is one document (a JSON Feed, <https://www.jsonfeed.org/version/1.1/>, or any JSON a mapping
/// reads): the document is downloaded whole, checked, and imported with the mapping in one transaction (upserts;
/// unchanged items are not rewritten). A failed, truncated or non-JSON response writes nothing but the error. The
/// time of the last good sync and the last error are kept in ``SyncBookkeeping/cursor`` (class `feed`): open the
/// storage context with ``SyncBookkeeping/entities`` besides the mapping's.
public struct FeedSync: Sendable {
  /// The source's name, for messages and `$source`.
  public var source: String
  public var url: URL
  public var mapping: ImportMapping
  public let storage: StorageContext
  public let transport: any HTTPTransport
  public var now: @Sendable () -> Date = { Date() }
  /// The largest document accepted, in bytes (default 64 MB): past it the transfer stops and nothing is imported.
  public var maxBytes = 64_000_000

  public init(
    source: String, url: URL, mapping: ImportMapping, storage: StorageContext, transport: any HTTPTransport
  ) {
    self.source = source
    self.url = url
    self.mapping = mapping
    self.storage = storage
    self.transport = transport
  }

  /// Downloads and imports the feed; the report has one part, named after the mapping's root entity.
  public func sync() async -> SyncReport {
    var part = SyncReport.ClassReport(className: "feed", entity: mapping.rootEntity)
    do {
      try await run(into: &part)
    } catch {
      part.error = error.description
      part.errorKind = error.kind
      let record = SyncBookkeeping.errorRecord(source, "feed", error.description, at: Timestamp(now()))
      _ = try? await storage.save(ChangeSet(upserts: [record]))
    }
    var report = SyncReport()
    report.classes = [part]
    return report
  }

  private func run(into part: inout SyncReport.ClassReport) async throws(SyncError) {
    let response: HTTPResponse
    do {
      response = try await transport.get(
        url, headers: ["Accept": "application/feed+json, application/json"], maxBodyBytes: maxBytes)
    } catch {
      throw .network(className: "feed", error)
    }
    if let bytes = response.bodyLimitExceeded {
      throw .invalidPage(className: "feed", detail: "the document is over the limit (\(bytes) bytes or more)")
    }
    guard response.status == 200 else {
      throw ParseSyncEngine.serverError(response, className: "feed", secrets: [])
    }
    // The document with its repairs (a lone surrogate …), reported as warnings of the items holding them.
    let json: JSONDocument
    do {
      json = try JSONValue.parseDocument(response.body)
    } catch {
      throw .invalidPage(className: "feed", detail: "\(error) (\(response.body.count) bytes)")
    }
    let report: ImportReport
    do {
      report = try await Importer(mapping: mapping).run(
        json, into: storage, source: url.absoluteString,
        options: .init(
          importTime: Timestamp(now()),
          additionalChanges: ChangeSet(upserts: [SyncBookkeeping.syncedRecord(source, "feed", at: Timestamp(now()))])))
    } catch let error as ImportError {
      throw .importFailed(className: "feed", detail: error.description)
    } catch {
      throw .storage(className: "feed", detail: "\(error)")
    }
    part.pages = 1
    part.objects = report.inserted + report.updated + report.unchanged + report.failed + report.skipped
    part.inserted = report.inserted
    part.updated = report.updated
    part.unchanged = report.unchanged
    part.failed = report.failed + report.skipped
    part.errors = report.failures
    part.warnings = report.warnings
  }
}
