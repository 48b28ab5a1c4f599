import Foundation
import GraphQL
import OrderedCollections

/// Completes one legacy result the way a GraphQL executor does (the spec's CompleteValue, as
/// graphql-core and graphql-js implement it): every leaf is serialised by its schema type (an enum
/// value outside the schema, a non-integral or 32-bit-overflowing `Int`, a non-numeric `Float`
/// become a field error and null), a null in a non-null position propagates to the nearest
/// nullable parent, and each error carries `message`, `locations` and `path`. The messages are
/// graphql-core's, whose server the legacy fixtures are recorded from. Pure.
struct ResultCompletion {
    private(set) var errors: [[String: Any]] = []
    private let schema: GraphQLSchema

    init(schema: GraphQLSchema = LegacySchema.schema) {
        self.schema = schema
    }

    /// A step of a result path: a response key or a list index.
    private enum PathElement: Sendable {
        case key(String)
        case index(Int)

        var json: Any {
            switch self {
            case .key(let key): key
            case .index(let index): index
            }
        }
    }

    /// A field that failed: the error is recorded where a nullable position takes the null.
    private struct FieldFailure: Error {
        var message: String
        var location: DocumentError.Location?
        var path: [PathElement]
    }

    /// The `data` object for `subscription`'s root field resolved to `payload`.
    mutating func data(for subscription: LegacySubscription, payload: [String: Any]) -> [String: Any] {
        guard let rootType = schema.subscriptionType, let definition = try? rootType.fields()[subscription.field] else {
            return [subscription.responseKey: NSNull()]
        }
        let value = field(
            type: definition.type, parent: rootType.name, name: subscription.field, sub: subscription.selection,
            value: payload, location: subscription.location, path: [.key(subscription.responseKey)])
        return [subscription.responseKey: value]
    }

    /// One field: completed, or null with its error recorded if the field is nullable; a failure
    /// of a non-null field is the parent's.
    private mutating func field(
        type: any GraphQLOutputType, parent: String, name: String, sub: ResultSelection?, value: Any?,
        location: DocumentError.Location?, path: [PathElement]
    ) -> Any {
        do {
            return try complete(type, parent: parent, name: name, sub: sub, value: value, location: location, path: path)
        } catch {
            record(error)
            return NSNull()
        }
    }

    private mutating func record(_ failure: FieldFailure) {
        var error: [String: Any] = ["message": failure.message, "path": failure.path.map(\.json)]
        if let location = failure.location { error["locations"] = [["line": location.line, "column": location.column]] }
        errors.append(error)
    }

    private mutating func complete(
        _ type: any GraphQLOutputType, parent: String, name: String, sub: ResultSelection?, value: Any?,
        location: DocumentError.Location?, path: [PathElement]
    ) throws(FieldFailure) -> Any {
        if let nonNull = type as? GraphQLNonNull, let inner = nonNull.ofType as? any GraphQLOutputType {
            let completed = try complete(inner, parent: parent, name: name, sub: sub, value: value, location: location, path: path)
            guard completed is NSNull else { return completed }
            throw FieldFailure(message: "Cannot return null for non-nullable field \(parent).\(name).", location: location, path: path)
        }
        guard let value, !(value is NSNull) else { return NSNull() }
        if let list = type as? GraphQLList, let itemType = list.ofType as? any GraphQLOutputType {
            guard let items = value as? [Any] else {
                throw FieldFailure(
                    message: "Expected Iterable, but did not find one for field '\(parent).\(name)'.", location: location, path: path)
            }
            var completed: [Any] = []
            for (index, item) in items.enumerated() {
                do {
                    completed.append(try complete(
                        itemType, parent: parent, name: name, sub: sub, value: item, location: location, path: path + [.index(index)]))
                } catch {
                    if itemType is GraphQLNonNull { throw error }
                    record(error)
                    completed.append(NSNull())
                }
            }
            return completed
        }
        if let object = type as? GraphQLObjectType, let sub {
            guard let source = value as? [String: Any] else { return NSNull() }
            return try completeObject(object, sub, source: source, path: path)
        }
        do {
            return try LeafSerialization.serialize(value, as: type)
        } catch {
            throw FieldFailure(message: error.message, location: location, path: path)
        }
    }

    private mutating func completeObject(
        _ type: GraphQLObjectType, _ selection: ResultSelection, source: [String: Any], path: [PathElement]
    ) throws(FieldFailure) -> Any {
        let definitions = (try? type.fields()) ?? [:]
        var result: [String: Any] = [:]
        for entry in selection.entries {
            if entry.field == "__typename" {
                result[entry.key] = type.name
                continue
            }
            guard let definition = definitions[entry.field] else { continue }
            let fieldPath = path + [.key(entry.key)]
            if definition.type is GraphQLNonNull {
                // A failure here nulls this object: the parent decides where the null lands.
                result[entry.key] = try complete(
                    definition.type, parent: type.name, name: entry.field, sub: entry.sub, value: source[entry.field],
                    location: entry.location, path: fieldPath)
            } else {
                result[entry.key] = field(
                    type: definition.type, parent: type.name, name: entry.field, sub: entry.sub, value: source[entry.field],
                    location: entry.location, path: fieldPath)
            }
        }
        return result
    }
}

/// Output coercion of the built-in scalars and of enums, with graphql-core's rules and messages.
enum LeafSerialization {
    struct Failure: Error {
        var message: String
    }

    /// A JSON value as the executor sees it.
    enum Scalar {
        case bool(Bool), int(Int64), double(Double), string(String), other(Any)

        init(_ value: Any) {
            switch value {
            case let string as String: self = .string(string)
            case let bool as Bool where type(of: value) == Bool.self: self = .bool(bool)
            case let number as NSNumber:
                switch String(cString: number.objCType) {
                case "c", "B": self = .bool(number.boolValue)
                case "d", "f": self = .double(number.doubleValue)
                default: self = .int(number.int64Value)
                }
            case let int as Int: self = .int(Int64(int))
            case let double as Double: self = .double(double)
            default: self = .other(value)
            }
        }

        /// Python's `repr` of the value, as graphql-core's `inspect` shows it in messages.
        var inspected: String {
            switch self {
            case .bool(let bool): bool ? "True" : "False"
            case .int(let int): "\(int)"
            case .double(let double): double.rounded() == double && abs(double) < 1e16 ? "\(Int64(double)).0" : "\(double)"
            case .string(let string): "'\(string)'"
            case .other(let other): other is [Any] ? "<list>" : other is [String: Any] ? "<dict>" : "\(other)"
            }
        }
    }

    static func serialize(_ value: Any, as type: any GraphQLOutputType) throws(Failure) -> Any {
        let scalar = Scalar(value)
        if let enumType = type as? GraphQLEnumType {
            guard case .string(let name) = scalar, enumType.values.contains(where: { $0.name == name }) else {
                throw Failure(message: "Enum '\(enumType.name)' cannot represent value: \(scalar.inspected)")
            }
            return name
        }
        switch (type as? GraphQLScalarType)?.name {
        case "Int": return try int(scalar)
        case "Float": return try float(scalar)
        case "Boolean": return try boolean(scalar)
        case "ID": return try id(scalar)
        default: return try string(scalar)
        }
    }

    private static func int(_ scalar: Scalar) throws(Failure) -> Any {
        let number: Double
        switch scalar {
        case .bool(let bool): return bool ? 1 : 0
        case .int(let int): number = Double(int)
        case .double(let double) where double.isFinite && double.rounded() == double: number = double
        case .string(let text) where Double(text).map { $0.isFinite && $0.rounded() == $0 } == true: number = Double(text)!
        default: throw Failure(message: "Int cannot represent non-integer value: \(scalar.inspected)")
        }
        guard number >= -2_147_483_648, number <= 2_147_483_647 else {
            throw Failure(message: "Int cannot represent non 32-bit signed integer value: \(scalar.inspected)")
        }
        return Int(number)
    }

    private static func float(_ scalar: Scalar) throws(Failure) -> Any {
        switch scalar {
        case .bool(let bool): return bool ? 1.0 : 0.0
        case .int(let int): return Double(int)
        case .double(let double) where double.isFinite: return double
        case .string(let text) where Double(text)?.isFinite == true: return Double(text)!
        default: throw Failure(message: "Float cannot represent non numeric value: \(scalar.inspected)")
        }
    }

    private static func boolean(_ scalar: Scalar) throws(Failure) -> Any {
        switch scalar {
        case .bool(let bool): return bool
        case .int(let int): return int != 0
        case .double(let double) where double.isFinite: return double != 0
        default: throw Failure(message: "Boolean cannot represent a non boolean value: \(scalar.inspected)")
        }
    }

    private static func string(_ scalar: Scalar) throws(Failure) -> Any {
        switch scalar {
        case .string(let string): return string
        case .bool(let bool): return bool ? "true" : "false"
        case .int(let int): return "\(int)"
        case .double(let double) where double.isFinite: return scalar.inspected
        default: throw Failure(message: "String cannot represent value: \(scalar.inspected)")
        }
    }

    private static func id(_ scalar: Scalar) throws(Failure) -> Any {
        switch scalar {
        case .string(let string): return string
        case .int(let int): return "\(int)"
        case .double(let double) where double.isFinite && double.rounded() == double: return "\(Int64(double))"
        default: throw Failure(message: "ID cannot represent value: \(scalar.inspected)")
        }
    }
}
