import Foundation

/// Small valid image files made here, for tests that serve images: each `seed` gives different pixels, so different
/// bytes.
public enum TestImages {
  /// A valid PNG (PNG spec: signature, `IHDR`, one `IDAT` of zlib "stored" deflate blocks, `IEND`, CRC-32 on every
  /// chunk) of `width` × `height` 8-bit RGB pixels.
  public static func png(width: Int = 4, height: Int = 3, seed: UInt8 = 0) -> Data {
    var raw: [UInt8] = []
    for y in 0..<height {
      raw.append(0)  // filter type None
      for x in 0..<width {
        raw += [UInt8(truncatingIfNeeded: x &* 40 &+ Int(seed)), UInt8(truncatingIfNeeded: y &* 60), seed]
      }
    }
    // zlib (RFC 1950) around stored deflate blocks (RFC 1951 §3.2.4), at most 65535 bytes each.
    var zlib: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let count = min(65535, raw.count - offset)
      let final: UInt8 = offset + count == raw.count ? 1 : 0
      zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
      zlib += raw[offset..<offset + count]
      offset += count
    } while offset < raw.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in raw {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    zlib += bigEndian(b << 16 | a)
    var data: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    data += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
    data += chunk("IDAT", zlib)
    data += chunk("IEND", [])
    return Data(data)
  }

  /// A valid 1 × 1 GIF89a (one global colour table of two entries, one image, LZW minimum code size 2).
  public static func gif(seed: UInt8 = 0) -> Data {
    Data(
      Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, seed, 0, 0, 0xFF, 0xFF, 0xFF]
        + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B])
  }

  private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + body
    return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
  }

  private static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }

  /// CRC-32 (ISO 3309, as PNG uses it: polynomial 0xEDB88320, reflected).
  private static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}
