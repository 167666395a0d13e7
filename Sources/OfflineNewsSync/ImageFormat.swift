import Foundation

/// An image file format, told by the file's first bytes (its signature), never by its name or `Content-Type`.
///
/// For example:
/// ```swift
/// ImageFormat(sniffing: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))  // .png
/// ```
///
/// The signatures: JPEG `FF D8 FF` (ISO/IEC 10918-1, SOI then a marker); PNG `89 50 4E 47 0D 0A 1A 0A` (PNG spec
/// §5.2); GIF `GIF87a` / `GIF89a` (GIF89a spec §17); WebP `RIFF` ···· `WEBP` (RFC 9649 §2.5); AVIF an ISO BMFF
/// `ftyp` box at offset 4 whose major or a compatible brand is `avif` or `avis` (AV1 Image File Format §9.1.1); SVG
/// an XML document whose first element is `svg` (sniffed after optional BOM, XML declaration, comments and
/// doctype).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
  /// JPEG (ISO/IEC 10918-1, JFIF or Exif).
  case jpeg
  /// PNG (W3C PNG specification).
  case png
  /// GIF 87a or 89a.
  case gif
  /// WebP (RFC 9649).
  case webp
  /// AVIF, AV1 in an ISO BMFF (HEIF) container.
  case avif
  /// SVG, an XML document: told apart so that it can be refused.
  case svg

  /// The raster formats, every format but SVG: what article images accept by default. SVG is an XML document
  /// that may run scripts and load other resources when it is shown (so it is neither offline nor private), and a
  /// terminal cannot show it.
  public static let raster: Set<ImageFormat> = [.jpeg, .png, .gif, .webp, .avif]

  /// The format `data` starts with, or `nil` when it is none of these.
  package init?(sniffing data: Data) {
    let bytes = [UInt8](data.prefix(64))
    func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
      bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
    }
    if starts([0xFF, 0xD8, 0xFF]) {
      self = .jpeg
    } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      self = .png
    } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
      self = .gif
    } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
      self = .webp
    } else if starts(Array("ftyp".utf8), at: 4), Self.isAVIF(bytes) {
      self = .avif
    } else if Self.isSVG(data) {
      self = .svg
    } else {
      return nil
    }
  }

  /// The `ftyp` box: size (4 bytes, big-endian), `ftyp`, major brand, minor version, compatible brands.
  private static func isAVIF(_ bytes: [UInt8]) -> Bool {
    let size = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
    let end = min(size, bytes.count)
    var brands: [ArraySlice<UInt8>] = []
    if end >= 12 { brands.append(bytes[8..<12]) }
    var offset = 16
    while offset + 4 <= end {
      brands.append(bytes[offset..<offset + 4])
      offset += 4
    }
    return brands.contains { Array($0) == Array("avif".utf8) || Array($0) == Array("avis".utf8) }
  }

  /// An XML document whose root element is `svg`: the first `<` that opens an element (not `<?`, `<!`) is `<svg`.
  private static func isSVG(_ data: Data) -> Bool {
    var rest = Substring(String(decoding: data.prefix(4096), as: UTF8.self))
    if rest.hasPrefix("\u{FEFF}") { rest = rest.dropFirst() }
    while true {
      rest = rest.drop { $0.isWhitespace }
      if rest.hasPrefix("<?") || rest.hasPrefix("<!") {
        let close = rest.hasPrefix("<!--") ? "-->" : ">"
        guard let end = rest.range(of: close) else { return false }
        rest = rest[end.upperBound...]
        continue
      }
      return rest.lowercased().hasPrefix("<svg") && rest.dropFirst(4).first.map { $0.isWhitespace || $0 == ">" } == true
    }
  }
}
