import Foundation

/// A JSON value as a test writes it into a payload and reads it back from a model's encoding.
/// Integers and fractional numbers stay apart, so `5000000000` survives exactly.
enum Wire: Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([Wire])
    case object([String: Wire])

    init(from decoder: any Decoder) throws {
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
        } else if let value = try? container.decode([Wire].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: Wire].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
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

    /// The JSON bytes.
    var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding a Wire cannot fail: it holds only JSON.
        return (try? encoder.encode(self)) ?? Data()
    }

    var description: String { String(decoding: data, as: UTF8.self) }

    subscript(key: String) -> Wire? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The value at a path of object keys (`[]` for an array's first item).
    func value(at path: [String]) -> Wire? {
        guard let head = path.first else { return self }
        if head == "[]" {
            guard case .array(let items) = self, let first = items.first else { return nil }
            return first.value(at: Array(path.dropFirst()))
        }
        return self[head]?.value(at: Array(path.dropFirst()))
    }

    /// A copy of an object with one member set, or removed when `value` is nil.
    func setting(_ key: String, to value: Wire?) -> Wire {
        guard case .object(var members) = self else { return self }
        members[key] = value
        return .object(members)
    }

    /// A copy with the member at a path (object keys; `[]` for an array's first item) set or removed.
    func setting(path: [String], to value: Wire?) -> Wire {
        guard let head = path.first else { return value ?? .null }
        let rest = Array(path.dropFirst())
        if head == "[]", case .array(var items) = self, !items.isEmpty {
            if rest.isEmpty, value == nil {
                items.removeFirst()
            } else {
                items[0] = items[0].setting(path: rest, to: value)
            }
            return .array(items)
        }
        guard case .object(var members) = self else { return self }
        if rest.isEmpty {
            members[head] = value
        } else if let member = members[head] {
            members[head] = member.setting(path: rest, to: value)
        }
        return .object(members)
    }
}
