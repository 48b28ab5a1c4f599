import Foundation
import SwitchboardCore

/// Reads a payload's fields by name. Each model's decoding is written once against it, and runs
/// over any `Decoder`'s keyed container or, on the delivery path, straight over a parsed
/// ``JSONDocument`` (``DocumentFields``), without the `Decoder` machinery.
package protocol PayloadFields {
    /// The field's value; nil when it is missing or null.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: PayloadKey) throws -> T?
    /// A text field that usually holds one of the contract's `eventType`s: read as
    /// ``decodeIfPresent(_:forKey:)`` reads a `String`, a contract name shared rather than copied.
    func decodeEventTypeIfPresent(forKey key: PayloadKey) throws -> String?
    /// The field's value; an error when it is missing or null.
    func decode<T: Decodable>(_ type: T.Type, forKey key: PayloadKey) throws -> T
    /// An integer written as a JSON integer or an integral float (`5.0`, `3.0E9`).
    func decodeIntegerIfPresent<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: PayloadKey) throws -> T?
    /// An optional ISO 8601 timestamp.
    func decodeDateIfPresent(forKey key: PayloadKey) throws -> Date?
    /// A required ISO 8601 timestamp.
    func decodeDate(forKey key: PayloadKey) throws -> Date
}

/// A model read through ``PayloadFields``.
package protocol PayloadDecodable: Decodable {
    /// Reads the model's fields.
    init<Fields: PayloadFields>(fields: Fields) throws
    /// Reads the model's fields from a parsed document: `init(fields:)`, specialized.
    init(document: DocumentFields) throws
}

extension KeyedDecodingContainer: PayloadFields where Key == PayloadKey {
    package func decodeEventTypeIfPresent(forKey key: PayloadKey) throws -> String? {
        try decodeIfPresent(String.self, forKey: key)
    }
}

/// The fields of an object in a parsed ``JSONDocument``: the delivery path's reader.
///
/// Like ``DocumentDecoder``, it reads what it can read exactly as `JSONDecoder` would, and throws
/// ``DocumentDecoder/Unsupported`` at anything else (a type mismatch, a fraction where an integer
/// is expected, a malformed date); the caller then decodes with `JSONDecoder`, which gives the
/// value or the precise error.
package struct DocumentFields: PayloadFields {
    let document: JSONDocument
    let object: JSONDocument.Index

    /// The fields of `node`; nil when it is not an object.
    init?(_ document: JSONDocument, _ node: JSONDocument.Index) {
        guard document.kind(node) == .object else { return nil }
        self.document = document
        self.object = node
    }

    /// The field's node, unless it is missing or null.
    private func value(_ key: PayloadKey) -> JSONDocument.Index? {
        guard let node = document.member(key.stringValue, of: object), document.kind(node) != .null else { return nil }
        return node
    }

    package func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: PayloadKey) throws -> T? {
        guard let node = value(key) else { return nil }
        return try DocumentDecoder.value(type, document: document, node: node)
    }

    package func decodeEventTypeIfPresent(forKey key: PayloadKey) throws -> String? {
        guard let node = value(key) else { return nil }
        if let name = document.withStringBytes(node, ContractEventTypes.name) ?? nil { return name }
        return try DocumentDecoder.value(String.self, document: document, node: node)
    }

    package func decode<T: Decodable>(_ type: T.Type, forKey key: PayloadKey) throws -> T {
        guard let node = value(key) else { throw DocumentDecoder.Unsupported() }
        return try DocumentDecoder.value(type, document: document, node: node)
    }

    package func decodeIntegerIfPresent<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: PayloadKey) throws -> T? {
        guard let node = value(key) else { return nil }
        if let integer = DocumentDecoder.integer(type, document, node) { return integer }
        guard let number = document.double(node), let integer = T(exactly: number) else { throw DocumentDecoder.Unsupported() }
        return integer
    }

    package func decodeDateIfPresent(forKey key: PayloadKey) throws -> Date? {
        guard let node = value(key) else { return nil }
        return try date(node)
    }

    package func decodeDate(forKey key: PayloadKey) throws -> Date {
        guard let node = value(key) else { throw DocumentDecoder.Unsupported() }
        return try date(node)
    }

    private func date(_ node: JSONDocument.Index) throws -> Date {
        guard let date = document.withStringBytes(node, ISO8601Timestamp.date(fromUTF8:)) ?? nil else {
            throw DocumentDecoder.Unsupported()
        }
        return date
    }
}
