import Foundation
import OfflineNewsModel

/// What an unexpected response body is, in a few words, for an error message: a web page is summarised
/// ("an HTML page (text/html; charset=utf-8, 1,234 bytes)") rather than quoted, since its first 200 characters
/// (`<!DOCTYPE html><html lang=…`) say nothing to the person reading the error.
///
/// For example:
/// ```swift
/// ResponseBodySummary.markup(Data("<!doctype html><p>Not found".utf8), contentType: "text/html")
/// // "an HTML page (text/html, 27 bytes)"
/// ```
package enum ResponseBodySummary {
  /// A summary of `data` when it is markup, a body that starts with `<` after optional white space and a byte
  /// order mark: an XML document when its `Content-Type` (RFC 9110 §8.3) names `xml` but not `html`, or it starts
  /// with `<?xml`, `<rss`, `<feed` or `<rdf` (as RSS and Atom feeds do); otherwise an HTML page. `nil` for anything
  /// else, which is then quoted as it is (whatever its content type says).
  package static func markup(_ data: Data, contentType: String?) -> String? {
    markupProblem(data, contentType: contentType)?.detail
  }

  /// ``markup(_:contentType:)`` as a problem: ``BodyProblem/Kind/xmlNotAFeed`` or ``BodyProblem/Kind/htmlPage``,
  /// its detail the summary followed by `suffix`.
  package static func markupProblem(_ data: Data, contentType: String?, suffix: String = "") -> BodyProblem? {
    let type = contentType.map { $0.trimmingWhiteSpace }.flatMap { $0.isEmpty ? nil : $0 }
    let media = type?.lowercased() ?? ""
    let head = String(decoding: data.prefix(512), as: UTF8.self)
      .drop { $0.isWhitespace || $0 == "\u{FEFF}" }.prefix(6).lowercased()
    guard head.hasPrefix("<") else { return nil }
    let isXML =
      (media.contains("xml") && !media.contains("html"))
      || (!media.contains("html") && ["<?xml", "<rss", "<feed", "<rdf"].contains(where: head.hasPrefix))
    let kind = isXML ? "an XML document" : "an HTML page"
    let shownType = type.map { $0.count > 60 ? String($0.prefix(60)) + "…" : $0 }
    let size = "\(data.count.groupedDigits) byte\(data.count == 1 ? "" : "s")"
    return BodyProblem(
      isXML ? .xmlNotAFeed : .htmlPage, "\(kind) (\(shownType.map { "\($0), " } ?? "")\(size))" + suffix)
  }

  /// A summary of `data` when it is no text at all, so that it is not called JSON that is cut off or of the wrong
  /// shape: `empty (0 bytes)` (nothing but white space), `gzip-compressed data (801 bytes)` (the gzip magic
  /// number, RFC 1952 §2.3.1: a `.gz` saved without unpacking, or a body sent compressed without saying so), or
  /// `binary data, not text (3,000 bytes)` when its first 1,024 bytes hold a binary data byte (WHATWG MIME
  /// Sniffing §7.2: 0x00–0x08, 0x0B, 0x0E–0x1A, 0x1C–0x1F, which no JSON, XML or HTML text has). `nil` for text,
  /// and for UTF-16 or UTF-32 text announced by its byte order mark (its NUL bytes are characters' halves).
  package static func nonText(_ data: Data) -> String? { nonTextProblem(data)?.detail }

  /// ``nonText(_:)`` as a problem (``BodyProblem/Kind/compressed``, ``BodyProblem/Kind/empty`` or
  /// ``BodyProblem/Kind/binary``), its detail `prefix` and the summary (an empty body's without `prefix`: empty is
  /// empty, whatever was expected of it).
  package static func nonTextProblem(_ data: Data, prefix: String = "") -> BodyProblem? {
    let size = "\(data.count.groupedDigits) byte\(data.count == 1 ? "" : "s")"
    let head = data.prefix(1024)
    if head.starts(with: [0x1F, 0x8B]) { return BodyProblem(.compressed, prefix + "gzip-compressed data (\(size))") }
    if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0, 0, 0xFE, 0xFF]) {
      return nil
    }
    let whiteSpace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x0C]
    // Empty is empty, whatever was expected of it: not "not valid JSON" for an empty `.rss` file.
    if data.allSatisfy({ whiteSpace.contains($0) }) { return BodyProblem(.empty, "empty (\(size))") }
    let binary = head.contains { $0 <= 0x08 || $0 == 0x0B || (0x0E...0x1A).contains($0) || (0x1C...0x1F).contains($0) }
    return binary ? BodyProblem(.binary, prefix + "binary data, not text (\(size))") : nil
  }

}
