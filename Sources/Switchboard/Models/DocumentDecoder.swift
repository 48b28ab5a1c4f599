import Foundation
import SwitchboardCore

/// A `Decoder` over a parsed ``JSONDocument``, the fast path of ``EventPayloadDecoder``.
///
/// It reads what the models read (objects, arrays, strings, booleans, `Double` and integers written
/// as integers) and throws at anything else, as it does for every failure: the caller then decodes
/// with `JSONDecoder`, which gives the value or the precise error. So where this decoder succeeds,
/// `JSONDecoder` would have produced the same value; its own errors are never shown.
struct DocumentDecoder: Decoder {
    let document: JSONDocument
    let node: JSONDocument.Index
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Left to `JSONDecoder`.
    struct Unsupported: Error {}

    /// Decodes `T` from a node of `document`; nil when this decoder leaves it to `JSONDecoder`.
    static func decode<T: Decodable>(_ type: T.Type, from document: JSONDocument, at node: JSONDocument.Index) -> T? {
        try? T(from: DocumentDecoder(document: document, node: node))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard document.kind(node) == .object else { throw Unsupported() }
        return KeyedDecodingContainer(KeyedContainer<Key>(document: document, object: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = document.elements(of: node) else { throw Unsupported() }
        return UnkeyedContainer(document: document, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(document: document, node: node)
    }

    /// Reads a node as a value of type `T`: scalars directly, everything else through its
    /// `init(from:)`. Types `JSONDecoder` treats specially (dates, data, URLs, decimals) and the
    /// other number types (`Float` rounds differently; the rest are not used) are refused.
    static func value<T: Decodable>(_ type: T.Type, document: JSONDocument, node: JSONDocument.Index) throws -> T {
        func scalar<S>(_ value: S?) throws -> T {
            guard let value else { throw Unsupported() }
            return unsafeBitCast(value, to: T.self)
        }
        if T.self == String.self { return try scalar(document.string(node)) }
        if T.self == Bool.self { return try scalar(document.bool(node)) }
        if T.self == Double.self { return try scalar(document.double(node)) }
        if T.self == Int.self { return try scalar(integer(Int.self, document, node)) }
        if T.self == Int64.self { return try scalar(integer(Int64.self, document, node)) }
        if T.self == Int32.self { return try scalar(integer(Int32.self, document, node)) }
        if T.self == UInt64.self { return try scalar(integer(UInt64.self, document, node)) }
        if T.self == UInt.self { return try scalar(integer(UInt.self, document, node)) }
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
            || T.self is any FixedWidthInteger.Type || T.self is any BinaryFloatingPoint.Type {
            throw Unsupported()
        }
        return try T(from: DocumentDecoder(document: document, node: node))
    }

    /// An integer written without fraction or sign of zero, in range.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ document: JSONDocument, _ node: JSONDocument.Index) -> T? {
        guard document.kind(node) == .number else { return nil }
        let text = document.rawBytes(node)
        guard !text.contains(UInt8(ascii: ".")), !text.elementsEqual("-0".utf8) else { return nil }
        return T(String(decoding: text, as: UTF8.self))
    }
}

extension DocumentDecoder {
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let document: JSONDocument
        let object: JSONDocument.Index
        var codingPath: [any CodingKey] { [] }

        var allKeys: [Key] { (document.members(of: object) ?? []).compactMap { Key(stringValue: $0.key) } }

        func contains(_ key: Key) -> Bool { document.member(key.stringValue, of: object) != nil }

        private func node(_ key: Key) throws -> JSONDocument.Index {
            guard let node = document.member(key.stringValue, of: object) else { throw Unsupported() }
            return node
        }

        func decodeNil(forKey key: Key) throws -> Bool { document.kind(try node(key)) == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try DocumentDecoder.value(type, document: document, node: node(key))
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let node = document.member(key.stringValue, of: object), document.kind(node) != .null else { return nil }
            return try DocumentDecoder.value(type, document: document, node: node)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try DocumentDecoder(document: document, node: node(key)).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try DocumentDecoder(document: document, node: node(key)).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { throw Unsupported() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Unsupported() }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let document: JSONDocument
        let elements: [JSONDocument.Index]
        var codingPath: [any CodingKey] { [] }
        var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(document: JSONDocument, elements: [JSONDocument.Index]) {
            self.document = document
            self.elements = elements
        }

        private func current() throws -> JSONDocument.Index {
            guard !isAtEnd else { throw Unsupported() }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard document.kind(try current()) == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let value = try DocumentDecoder.value(type, document: document, node: current())
            currentIndex += 1
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let container = try DocumentDecoder(document: document, node: current()).container(keyedBy: type)
            currentIndex += 1
            return container
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let container = try DocumentDecoder(document: document, node: current()).unkeyedContainer()
            currentIndex += 1
            return container
        }

        mutating func superDecoder() throws -> any Decoder { throw Unsupported() }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let document: JSONDocument
        let node: JSONDocument.Index
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { document.kind(node) == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try DocumentDecoder.value(type, document: document, node: node)
        }
    }
}
