import Foundation
import Switchboard
import SwitchboardContract
import SwitchboardCore

/// Payloads made from the spec, and the models the stream catalog binds to each `eventType`.
enum ContractFixtures {
    /// The bundled document's description, loaded once.
    static let contract: EventContract = {
        do {
            return try EventContract.bundled()
        } catch {
            fatalError("the bundled contract does not load: \(error)")
        }
    }()

    /// The streams that carry exactly one `eventType`, from the stream catalog.
    static let singleEventStreams: [StreamDescriptor] = StreamCatalog.all.filter { $0.eventTypes.count == 1 }

    /// The merged streams (`deviceValues()`, `organizationValues()`).
    static let mergedStreams: [StreamDescriptor] = StreamCatalog.all.filter { $0.eventTypes.count > 1 }

    /// Every `eventType` the catalog routes to a per-channel stream.
    static let catalogEventTypes: [String] = singleEventStreams.compactMap(\.eventTypes.first).sorted()

    /// The model the catalog decodes an `eventType` into.
    static func model(for eventType: String) -> any CatalogEvent.Type {
        guard let stream = singleEventStreams.first(where: { $0.eventTypes.contains(eventType) }) else {
            fatalError("no per-channel stream for \(eventType)")
        }
        return stream.outputType
    }

    /// The spec's event, or a failure naming it.
    static func event(_ eventType: String) throws -> EventContract.Event {
        guard let event = contract[eventType] else {
            throw FixtureError("the bundled spec has no event \(eventType)")
        }
        return event
    }

    // MARK: - Values from the spec

    /// A timestamp in the form the models write back, so it survives a round trip as text.
    static let sampleTimestamp = "2024-05-01T12:34:56.789Z"

    /// A valid value for a field: its first enum value, a date for `date-time`, a size above
    /// 2^31 for `int64`, an integer inside the bounds, and every member of an object.
    static func sample(_ field: EventContract.Field) -> Wire {
        if let first = field.enumValues?.first { return .string(first) }
        switch field.type {
        case .string:
            return .string(field.format == "date-time" ? sampleTimestamp : "sample-\(field.name)")
        case .integer:
            var value: Int64 = field.format == "int64" ? 5_000_000_000 : 7
            if let maximum = field.maximum { value = min(value, Int64(maximum.value) - (maximum.isExclusive ? 1 : 0)) }
            if let minimum = field.minimum { value = max(value, Int64(minimum.value) + (minimum.isExclusive ? 1 : 0)) }
            return .integer(value)
        case .number:
            return .number(12.5)
        case .boolean:
            return .bool(true)
        case .array:
            return .array(field.items.map { [sample($0)] } ?? [])
        default:
            return full(field.fields)
        }
    }

    /// An object with every field set.
    static func full(_ fields: [EventContract.Field]) -> Wire {
        .object(Dictionary(uniqueKeysWithValues: fields.map { ($0.name, sample($0)) }))
    }

    /// An object with only the required fields set.
    static func minimal(_ fields: [EventContract.Field]) -> Wire {
        .object(Dictionary(uniqueKeysWithValues: fields.filter(\.isRequired).map { ($0.name, sample($0)) }))
    }

    /// A value of another JSON type than the field's.
    static func wrongType(_ field: EventContract.Field) -> Wire {
        switch field.type {
        case .string: .integer(42)
        case .integer: .string("7")
        case .number: .string("12.5")
        case .boolean: .string("true")
        case .array: .string("[]")
        default: .string("{}")
        }
    }

    /// Every field of an event, nested ones included, with its path (`[]` for array items).
    static func allFields(_ fields: [EventContract.Field], prefix: [String] = []) -> [(path: [String], field: EventContract.Field)] {
        fields.flatMap { field -> [(path: [String], field: EventContract.Field)] in
            let path = prefix + [field.name]
            var result = [(path, field)] + allFields(field.fields, prefix: path)
            if let items = field.items {
                result.append((path + ["[]"], items))
                result += allFields(items.fields, prefix: path + ["[]"])
            }
            return result
        }
    }

    // MARK: - Models

    /// Decodes a payload into a model the way the notifier does.
    static func decode(_ type: any CatalogEvent.Type, _ payload: Wire) throws -> any CatalogEvent {
        try decodeOpened(type, payload.data)
    }

    private static func decodeOpened<T: CatalogEvent>(_ type: T.Type, _ data: Data) throws -> any CatalogEvent {
        try EventPayloadDecoder.decode(T.self, from: data)
    }

    /// What a model writes back.
    static func encode(_ value: any CatalogEvent) throws -> Wire {
        try JSONDecoder().decode(Wire.self, from: JSONEncoder().encode(value))
    }

    /// The stored property of a model value at a path of wire names (`[]` for an array's first item).
    static func swiftField(of value: Any, at path: [String]) -> SwiftField? {
        var current: Any = value
        var found: SwiftField?
        for (index, name) in path.enumerated() {
            if name == "[]" {
                guard let array = found, let first = array.elements?.first, let type = array.elementType else { return nil }
                found = SwiftField(name: "[]", type: type, isOptional: false, value: first)
            } else {
                guard let field = SwiftField.fields(of: current).first(where: { $0.name == name }) else { return nil }
                found = field
            }
            guard let next = found?.value else { return index == path.count - 1 ? found : nil }
            current = next
        }
        return found
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
