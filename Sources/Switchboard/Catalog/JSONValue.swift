import Foundation

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
