import Foundation

/// One parsed and validated legacy subscription: `subscription [Name][($v: ID!)] { field(arg: …) { … } }`.
struct LegacySubscription: Sendable, Equatable {
    /// The subscription field, e.g. `subscribeDeviceState`.
    var field: String
    /// The value of its one argument (`userId` or `orgId`), after variable substitution.
    var argument: String
    /// The selection set, as a tree: a leaf name maps to nil.
    var selection: Selection
}

/// A GraphQL selection set: field name → sub-selection (nil for a leaf).
struct Selection: Sendable, Equatable {
    var fields: [(name: String, sub: Selection?)]

    static func == (lhs: Selection, rhs: Selection) -> Bool {
        lhs.fields.map(\.name) == rhs.fields.map(\.name) && zip(lhs.fields, rhs.fields).allSatisfy { $0.0.sub == $0.1.sub }
    }

    /// Keeps only the selected fields of `object`, recursing into objects and arrays of objects.
    func project(_ value: Any?) -> Any {
        guard let value else { return NSNull() }
        if let array = value as? [Any] { return array.map { project($0) } }
        guard let object = value as? [String: Any] else { return NSNull() }
        var result: [String: Any] = [:]
        for (name, sub) in fields {
            let field = object[name]
            if let sub { result[name] = field.map { sub.project($0) } ?? NSNull() } else {
                result[name] = field ?? NSNull()
            }
        }
        return result
    }
}

/// A GraphQL error in the shape servers send: `{message, locations:[{line, column}]}`.
struct GraphQLError: Error, Sendable, Equatable {
    var message: String
    var line: Int
    var column: Int

    var json: [String: Any] { ["message": message, "locations": [["line": line, "column": column]]] }
}
