import Foundation

/// A value encoded with every absent optional written as `null` (docs/CLI.md, JSON: every key of a `--json` document
/// is always present, and of each line of `news serve --json`'s request log), so that a document type needs no
/// hand-written `encode(to:)` for it: the synthesized `Encodable` conformance calls `encodeIfPresent` for an optional
/// property, and the containers of this encoder write `null` there instead of leaving the key out.
///
/// Nested values are encoded the same way, but for the values `JSONEncoder` writes by a strategy of its own (`URL`,
/// `Date`, `Data`, `Decimal`), which are handed to it as they are.
package struct NullKeeping<Value: Encodable>: Encodable {
  /// The value encoded.
  package var value: Value

  /// `value`, to be encoded with its absent optionals as `null`.
  package init(value: Value) { self.value = value }

  package func encode(to encoder: any Encoder) throws {
    try value.encode(to: NullKeepingEncoder(base: encoder))
  }
}

/// `value` wrapped in ``NullKeeping``, unless it is one of the values `JSONEncoder` encodes by a strategy of its own
/// or a string, number or Boolean (which hold no optional).
private func nullKeeping<T: Encodable>(_ value: T) -> any Encodable {
  switch value {
  case is URL, is Date, is Data, is Decimal, is String, is Bool, is Int, is Int64, is Double: value
  default: NullKeeping(value: value)
  }
}

private struct NullKeepingEncoder: Encoder {
  let base: any Encoder
  var codingPath: [any CodingKey] { base.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(NullKeepingKeyedContainer(base: base.container(keyedBy: type)))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    NullKeepingUnkeyedContainer(base: base.unkeyedContainer())
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    NullKeepingSingleValueContainer(base: base.singleValueContainer())
  }
}

private struct NullKeepingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  var base: KeyedEncodingContainer<Key>
  var codingPath: [any CodingKey] { base.codingPath }

  mutating func encodeNil(forKey key: Key) throws { try base.encodeNil(forKey: key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try base.encode(nullKeeping(value), forKey: key)
  }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    guard let value else { return try base.encodeNil(forKey: key) }
    try encode(value, forKey: key)
  }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: String, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: Float, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: Int, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try base.encode(value, forKey: key) }
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }

  private mutating func present<T: Encodable>(_ value: T?, _ key: Key) throws {
    guard let value else { return try base.encodeNil(forKey: key) }
    try base.encode(value, forKey: key)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(
      NullKeepingKeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType, forKey: key)))
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    NullKeepingUnkeyedContainer(base: base.nestedUnkeyedContainer(forKey: key))
  }
  mutating func superEncoder() -> any Encoder { NullKeepingEncoder(base: base.superEncoder()) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    NullKeepingEncoder(base: base.superEncoder(forKey: key))
  }
}

private struct NullKeepingUnkeyedContainer: UnkeyedEncodingContainer, PrimitiveForwarding {
  var base: any UnkeyedEncodingContainer
  var codingPath: [any CodingKey] { base.codingPath }
  var count: Int { base.count }

  mutating func encodeNil() throws { try base.encodeNil() }
  mutating func encodePrimitive<T: Encodable>(_ value: T) throws { try base.encode(value) }
  mutating func encode<T: Encodable>(_ value: T) throws { try base.encode(nullKeeping(value)) }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(NullKeepingKeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType)))
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    NullKeepingUnkeyedContainer(base: base.nestedUnkeyedContainer())
  }
  mutating func superEncoder() -> any Encoder { NullKeepingEncoder(base: base.superEncoder()) }
}

private struct NullKeepingSingleValueContainer: SingleValueEncodingContainer, PrimitiveForwarding {
  var base: any SingleValueEncodingContainer
  var codingPath: [any CodingKey] { base.codingPath }

  mutating func encodeNil() throws { try base.encodeNil() }
  mutating func encodePrimitive<T: Encodable>(_ value: T) throws { try base.encode(value) }
  mutating func encode<T: Encodable>(_ value: T) throws { try base.encode(nullKeeping(value)) }
}

/// The unkeyed and single-value containers hand a string, number or Boolean to their base as it is (it holds no
/// optional): the 14 `encode` overloads both protocols require, written once over ``encodePrimitive(_:)``.
private protocol PrimitiveForwarding {
  /// Encodes `value` (a string, number or Boolean) with the base container, unwrapped.
  mutating func encodePrimitive<T: Encodable>(_ value: T) throws
}

extension PrimitiveForwarding {
  mutating func encode(_ value: Bool) throws { try encodePrimitive(value) }
  mutating func encode(_ value: String) throws { try encodePrimitive(value) }
  mutating func encode(_ value: Double) throws { try encodePrimitive(value) }
  mutating func encode(_ value: Float) throws { try encodePrimitive(value) }
  mutating func encode(_ value: Int) throws { try encodePrimitive(value) }
  mutating func encode(_ value: Int8) throws { try encodePrimitive(value) }
  mutating func encode(_ value: Int16) throws { try encodePrimitive(value) }
  mutating func encode(_ value: Int32) throws { try encodePrimitive(value) }
  mutating func encode(_ value: Int64) throws { try encodePrimitive(value) }
  mutating func encode(_ value: UInt) throws { try encodePrimitive(value) }
  mutating func encode(_ value: UInt8) throws { try encodePrimitive(value) }
  mutating func encode(_ value: UInt16) throws { try encodePrimitive(value) }
  mutating func encode(_ value: UInt32) throws { try encodePrimitive(value) }
  mutating func encode(_ value: UInt64) throws { try encodePrimitive(value) }
}
