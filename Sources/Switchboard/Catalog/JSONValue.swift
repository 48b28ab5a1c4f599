import Foundation
import SwitchboardCore

/// A parsed JSON value, used where the notifier must look inside a payload before it knows the
/// typed model (routing by `eventType`, GraphQL selection rules).
package enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
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

    /// The value of a node of a parsed document, as `JSONDecoder` would have read it.
    package init(_ document: JSONDocument, _ index: JSONDocument.Index) {
        switch document.kind(index) {
        case .null: self = .null
        case .bool: self = .bool(document.bool(index) ?? false)
        case .number: self = .number(document.double(index) ?? 0)
        case .string: self = .string(document.string(index) ?? "")
        case .array: self = .array((document.elements(of: index) ?? []).map { JSONValue(document, $0) })
        case .object:
            var members: [String: JSONValue] = [:]
            for (key, value) in document.members(of: index) ?? [] { members[key] = JSONValue(document, value) }
            self = .object(members)
        }
    }

    /// The member `key` of an object, or nil.
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// True unless the value is missing or `null`.
    package static func isSet(_ value: JSONValue?) -> Bool {
        switch value {
        case .none, .null?: false
        default: true
        }
    }

    /// The string, if this is one.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
