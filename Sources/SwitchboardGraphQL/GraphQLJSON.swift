import Foundation
import SwitchboardCore

/// A JSON value, for taking frames apart and putting payloads back together.
package enum GraphQLJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([GraphQLJSON])
    case object([String: GraphQLJSON])

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
        } else if let value = try? container.decode([GraphQLJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: GraphQLJSON].self))
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

    subscript(key: String) -> GraphQLJSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var isNull: Bool { self == .null }

    /// A node of a parsed document as `JSONDecoder` would have read it; nil for a number whose
    /// kind (`integer` or `number`) `JSONDecoder` might judge otherwise (`-0`, or integral with a
    /// fraction).
    init?(_ document: JSONDocument, _ index: JSONDocument.Index) {
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
            var elements: [GraphQLJSON] = []
            for element in document.elements(of: index) ?? [] {
                guard let value = GraphQLJSON(document, element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        case .object:
            var members: [String: GraphQLJSON] = [:]
            for (key, member) in document.members(of: index) ?? [] {
                guard let value = GraphQLJSON(document, member) else { return nil }
                members[key] = value
            }
            self = .object(members)
        }
    }

    package static func parse(_ text: String) throws -> GraphQLJSON {
        try JSONDecoder().decode(GraphQLJSON.self, from: Data(text.utf8))
    }

    package func serialized() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    package func text() throws -> String { String(decoding: try serialized(), as: UTF8.self) }
}
