import Foundation

/// One parsed and validated legacy subscription: the one root field of a `subscription`
/// operation, as ``SubscriptionDocument`` reads it out of a GraphQLSwift document.
struct LegacySubscription: Sendable, Equatable {
    /// The subscription field, e.g. `subscribeDeviceState`.
    var field: String
    /// Where the result goes in `data`: the field's alias, or its name.
    var responseKey: String
    /// The value of its one argument (`userId` or `orgId`), after variable substitution.
    var argument: String
    /// The selection set, after fragments, `@skip`/`@include` and aliases.
    var selection: ResultSelection
    /// Where the root field is in the document (a result error's `locations`).
    var location: DocumentError.Location?

    init(
        field: String, responseKey: String? = nil, argument: String, selection: ResultSelection,
        location: DocumentError.Location? = nil
    ) {
        self.field = field
        self.responseKey = responseKey ?? field
        self.argument = argument
        self.selection = selection
        self.location = location
    }
}

/// A resolved selection set: each response key (an alias or the field name) with the field it
/// reads and, for an object field, its own selection.
struct ResultSelection: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        /// The key in the output.
        var key: String
        /// The schema field read from the payload (`__typename` answers ``ResultSelection/typeName``).
        var field: String
        /// The sub-selection of an object field; nil for a leaf.
        var sub: ResultSelection?
        /// Where the field is in the document (a result error's `locations`).
        var location: DocumentError.Location?
    }

    /// The object type this selection is on.
    var typeName: String
    var entries: [Entry]
}

/// A GraphQL error in the shape servers send: `{message, locations:[{line, column}]}`.
struct DocumentError: Sendable, Equatable {
    struct Location: Sendable, Equatable {
        var line: Int
        var column: Int
    }

    var message: String
    var locations: [Location]

    init(message: String, locations: [Location] = []) {
        self.message = message
        self.locations = locations
    }

    var json: [String: Any] {
        var object: [String: Any] = ["message": message]
        if !locations.isEmpty { object["locations"] = locations.map { ["line": $0.line, "column": $0.column] } }
        return object
    }
}

/// Why a subscription document was refused, and at which stage: each dialect answers the
/// stages differently, as the reference servers do.
struct DocumentFailure: Error, Sendable, Equatable {
    enum Stage: Sendable, Equatable {
        /// The document did not parse.
        case syntax
        /// It parsed but failed validation against the schema, or names no usable operation.
        case validation
        /// It is valid but its variables (or the arguments they feed) could not be coerced.
        case execution
    }

    var stage: Stage
    var errors: [DocumentError]
}
