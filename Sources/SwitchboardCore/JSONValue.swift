import Foundation

/// A JSON value as a tree: how the client modules take control frames apart and write every frame
/// they send. Events take the other road, ``JSONDocument``, which reads a frame in place without
/// building values; a value is made from a document's node when one answers
/// (``init(_:_:)``), and from `JSONDecoder` only for what the document leaves alone.
package enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    package subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    package var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var isNull: Bool { self == .null }

    /// The elements of an array; nil for anything else.
    package var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// An object's members; nil for anything else.
    package var object: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// A whole number within ±2^53, from an integer, a number with no fraction, or text holding
    /// one (servers send codes either way); nil for anything else. Beyond 2^53 a number may have
    /// been read through a `Double` and lost digits.
    package var integer: Int? {
        let number: Int? =
            switch self {
            case .integer(let value): Int(exactly: value)
            case .number(let value): Int(exactly: value)
            case .string(let text): Int(text)
            default: nil
            }
        guard let number, number.magnitude <= 1 << 53 else { return nil }
        return number
    }

    /// A node of a parsed document as `JSONDecoder` would have read it; nil for a number whose
    /// kind (`integer` or `number`) `JSONDecoder` might judge otherwise (`-0`, or integral with a
    /// fraction).
    package init?(_ document: JSONDocument, _ index: JSONDocument.Index) {
        switch document.kind(index) {
        case .null: self = .null
        case .bool: self = .bool(document.bool(index) == true)
        case .string: self = .string(document.string(index) ?? "")
        case .number:
            if let integer = document.integer(index), !document.rawBytes(index).elementsEqual("-0".utf8) {
                self = .integer(Int64(integer))
            } else {
                guard let number = document.double(index), number.rounded() != number else { return nil }
                self = .number(number)
            }
        case .array:
            var elements: [JSONValue] = []
            for element in document.elements(of: index) ?? [] {
                guard let value = JSONValue(document, element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        case .object:
            var members: [String: JSONValue] = [:]
            for (key, member) in document.members(of: index) ?? [] {
                guard let value = JSONValue(document, member) else { return nil }
                members[key] = value
            }
            self = .object(members)
        }
    }

    /// Parses JSON text: through ``JSONDocument`` when it answers, else `JSONDecoder`.
    /// - Throws: `DecodingError` for text that is not JSON.
    package static func parse(_ text: String) throws -> JSONValue {
        if let document = JSONDocument(text), let value = JSONValue(document, document.root) { return value }
        return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// Parses JSON bytes, as ``parse(_:)-swift.type.method`` does text.
    /// - Throws: `DecodingError` for bytes that are not JSON.
    package static func parse(_ data: Data) throws -> JSONValue {
        if let document = JSONDocument(data), let value = JSONValue(document, document.root) { return value }
        return try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Compact JSON with sorted keys and unescaped slashes.
    package func serialized() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// ``serialized()`` as text.
    package func text() throws -> String { String(decoding: try serialized(), as: UTF8.self) }
}
