import Foundation
import Switchboard
import SwitchboardContract

/// The models' open enums: a closed list of known wire values plus `unknown(raw)`.
protocol OpenEnum {
    /// The wire text of every known case (the enum's `knownCases`).
    static var knownWireValues: [String] { get }
    /// The wire text.
    var rawValue: String { get }
    /// False for `unknown(raw)`. (Equality compares wire text, so `.unknown("Ready") == .ready`;
    /// this looks at the case itself.)
    var isKnownCase: Bool { get }
}

extension ArchiveStatus: OpenEnum {
    static var knownWireValues: [String] { knownCases.map(\.rawValue) }
    var isKnownCase: Bool { if case .unknown = self { false } else { true } }
}

extension LicensePhase: OpenEnum {
    static var knownWireValues: [String] { knownCases.map(\.rawValue) }
    var isKnownCase: Bool { if case .unknown = self { false } else { true } }
}

extension TokenRevokeReason: OpenEnum {
    static var knownWireValues: [String] { knownCases.map(\.rawValue) }
    var isKnownCase: Bool { if case .unknown = self { false } else { true } }
}

private protocol OptionalBox {
    static var wrappedType: Any.Type { get }
    var wrappedValue: Any? { get }
}

extension Optional: OptionalBox {
    static var wrappedType: Any.Type { Wrapped.self }
    var wrappedValue: Any? { self.map { $0 } }
}

private protocol ArrayBox {
    static var elementType: Any.Type { get }
    var elementValues: [Any] { get }
}

extension Array: ArrayBox {
    static var elementType: Any.Type { Element.self }
    var elementValues: [Any] { map { $0 } }
}

/// One stored property of a model value, read through `Mirror`: the Swift side of a field,
/// taken from the model itself rather than from a list in the tests.
struct SwiftField {
    /// The property's name, which is the wire name for the models' new-contract fields.
    var name: String
    /// The property's type, without `Optional`.
    var type: Any.Type
    /// Whether the property is `Optional`.
    var isOptional: Bool
    /// The value, nil when the optional is empty.
    var value: Any?

    /// The stored properties of a value, in declaration order.
    static func fields(of value: Any) -> [SwiftField] {
        Mirror(reflecting: value).children.compactMap { child in
            guard let label = child.label else { return nil }
            let declared = Swift.type(of: child.value)
            if let optional = declared as? any OptionalBox.Type {
                let unwrapped = (child.value as? any OptionalBox)?.wrappedValue
                return SwiftField(name: label, type: optional.wrappedType, isOptional: true, value: unwrapped)
            }
            return SwiftField(name: label, type: declared, isOptional: false, value: child.value)
        }
    }

    /// The JSON type and the formats a property of this Swift type may have in the spec, or nil
    /// for a struct (an object, checked field by field).
    ///
    /// `Int64` needs `int64`: the contract says those sizes exceed 2^31. `Int` must not claim
    /// `int64`, since `Int` is 32-bit on watchOS.
    var expectedJSON: (type: EventContract.ValueType, formats: [String?])? {
        switch type {
        case is String.Type: (.string, [nil])
        case is Date.Type: (.string, ["date-time"])
        case is Bool.Type: (.boolean, [nil])
        case is Int.Type: (.integer, [nil, "int32"])
        case is Int32.Type: (.integer, ["int32"])
        case is Int64.Type: (.integer, ["int64"])
        case is Double.Type: (.number, [nil, "double"])
        case is any OpenEnum.Type: (.string, [nil])
        case is any ArrayBox.Type: (.array, [nil])
        default: nil
        }
    }

    /// The enum type, if the property holds one of the models' open enums.
    var openEnum: (any OpenEnum.Type)? { type as? any OpenEnum.Type }

    /// The elements, if the value is an array.
    var elements: [Any]? { (value as? any ArrayBox)?.elementValues }

    /// The element type, if the property is an array.
    var elementType: Any.Type? { (type as? any ArrayBox.Type)?.elementType }
}
