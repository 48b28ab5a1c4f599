import Foundation
import SwitchboardCore

/// A JSON value as a test writes it into a payload and reads it back from a model's encoding:
/// the client's own ``JSONValue``, whose integers and fractional numbers stay apart, so
/// `5000000000` survives exactly.
typealias Wire = JSONValue

extension JSONValue {
    /// The JSON bytes, keys sorted.
    var data: Data {
        // Encoding a value cannot fail: it holds only JSON.
        (try? serialized()) ?? Data()
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
