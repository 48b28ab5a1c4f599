import Foundation
import GraphQL
import OrderedCollections

/// Reads a legacy subscription request the way a GraphQL server does, with GraphQLSwift: parse,
/// validate against ``LegacySchema`` (the library's specified rules plus the two it lacks:
/// one root field per subscription, and no differing fields under one response key), pick the
/// operation, coerce the variables, then resolve the root field's argument and the selection
/// set (fragments, inline fragments, `@skip`/`@include`, aliases, `__typename`). Pure.
enum SubscriptionDocument {
    static func read(
        _ query: String, variables: [String: Any], operationName: String? = nil
    ) -> Result<LegacySubscription, DocumentFailure> {
        do {
            return .success(try subscription(query, variables: variables, operationName: operationName))
        } catch let failure as DocumentFailure {
            return .failure(failure)
        } catch {
            return .failure(DocumentFailure(stage: .execution, errors: [DocumentError(message: "\(error)")]))
        }
    }

    private static func subscription(_ query: String, variables: [String: Any], operationName: String?) throws -> LegacySubscription {
        let schema = LegacySchema.schema
        let document: Document
        do {
            document = try parse(source: query)
        } catch let error as GraphQLError {
            var syntax = documentError(error)
            syntax.message = syntaxMessage(error.message)
            throw DocumentFailure(stage: .syntax, errors: [syntax])
        }
        let errors = validate(schema: schema, ast: document)
        guard errors.isEmpty else { throw DocumentFailure(stage: .validation, errors: errors.map(documentError)) }

        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        let operation: OperationDefinition
        if let operationName {
            guard let named = operations.first(where: { $0.name?.value == operationName }) else {
                throw failure(.validation, "Unknown operation named \"\(operationName)\".")
            }
            operation = named
        } else {
            guard operations.count == 1 else {
                throw failure(.validation, "Must provide operation name if query contains multiple operations.")
            }
            operation = operations[0]
        }
        guard operation.operation == .subscription, let subscriptionType = schema.subscriptionType else {
            throw failure(.validation, "Schema is not configured to execute \(operation.operation.rawValue) operation.", nodes: [operation])
        }

        let values = try coerceVariables(operation.variableDefinitions, variables, schema: schema)
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions { fragments[fragment.name.value] = fragment }
        var collector = Collector(schema: schema, fragments: fragments, variables: values)

        let root = try collector.collect([operation.selectionSet])
        let subject = operation.name.map { "Subscription \"\($0.value)\"" } ?? "Anonymous Subscription"
        guard root.count == 1, let responseKey = root.keys.first, let nodes = root[responseKey], let node = nodes.first else {
            throw failure(.validation, "\(subject) must select only one top level field.",
                          nodes: root.dropFirst().flatMap(\.value))
        }
        guard !node.name.value.hasPrefix("__") else {
            throw failure(.validation, "\(subject) must not select an introspection top level field.", nodes: [node])
        }
        let definition = try subscriptionType.fields()[node.name.value]
        guard let definition, let argumentName = definition.args.keys.first, let argumentDefinition = definition.args[argumentName],
            let objectType = getNamedType(type: definition.type) as? GraphQLObjectType
        else {
            throw failure(.validation, "Cannot query field \"\(node.name.value)\" on type \"Subscription\".", nodes: [node])
        }
        let argument = try collector.argument(argumentName, of: argumentDefinition, on: node)
        let selection = try collector.selection(of: nodes, on: objectType)
        return LegacySubscription(
            field: node.name.value, responseKey: responseKey, argument: argument, selection: selection,
            location: location(of: node))
    }

    // MARK: Variables

    /// The operation's variables coerced to their declared types, as `coerceVariableValues`
    /// does in graphql-js (same messages); a variable neither given nor defaulted is absent.
    private static func coerceVariables(
        _ definitions: [VariableDefinition], _ inputs: [String: Any], schema: GraphQLSchema
    ) throws -> [String: Map] {
        var values: [String: Map] = [:]
        var errors: [DocumentError] = []
        for definition in definitions {
            let name = definition.variable.name.value
            let typeText = print(ast: definition.type)
            do {
                if let input = inputs[name] {
                    values[name] = try coerce(input, to: definition.type, schema: schema)
                } else if let defaultValue = definition.defaultValue {
                    values[name] = try literal(defaultValue, type: definition.type, schema: schema, variables: [:])
                } else if definition.type is NonNullType {
                    errors.append(documentError(message: "Variable \"$\(name)\" of required type \"\(typeText)\" was not provided.",
                                                nodes: [definition]))
                }
            } catch let problem as CoercionProblem {
                let message: String
                switch problem {
                case .null: message = "Variable \"$\(name)\" of non-null type \"\(typeText)\" must not be null."
                case .invalid(let value, let reason): message = "Variable \"$\(name)\" got invalid value \(value); \(reason)"
                }
                errors.append(documentError(message: message, nodes: [definition]))
            }
        }
        guard errors.isEmpty else { throw DocumentFailure(stage: .execution, errors: errors) }
        return values
    }

    private enum CoercionProblem: Error {
        case null
        case invalid(String, String)
    }

    /// A JSON variable value coerced to a variable's type.
    private static func coerce(_ input: Any, to type: any `Type`, schema: GraphQLSchema) throws -> Map {
        if let nonNull = type as? NonNullType {
            guard !(input is NSNull) else { throw CoercionProblem.null }
            return try coerce(input, to: nonNull.type, schema: schema)
        }
        if input is NSNull { return .null }
        if let list = type as? ListType {
            guard let array = input as? [Any] else { return .array([try coerce(input, to: list.type, schema: schema)]) }
            return .array(try array.map { try coerce($0, to: list.type, schema: schema) })
        }
        let value = map(input)
        let named = (type as? NamedType).flatMap { schema.getType(name: $0.name.value) }
        do {
            if let scalar = named as? GraphQLScalarType { return try scalar.parseValue(value: value) }
            if let enumeration = named as? GraphQLEnumType { return try enumeration.parseValue(value: value) }
        } catch let error as GraphQLError {
            throw CoercionProblem.invalid(jsonText(input), error.message)
        }
        throw CoercionProblem.invalid(jsonText(input), "Expected type \"\(print(ast: type))\".")
    }

    /// A literal (a default value, or an argument) as a value of `type`; variables substituted.
    static func literal(_ value: any Value, type: (any `Type`)?, schema: GraphQLSchema, variables: [String: Map]) throws -> Map {
        if let variable = value as? Variable { return variables[variable.name.value] ?? .undefined }
        if value is NullValue { return .null }
        if let list = value as? ListValue {
            let itemType = ((type as? NonNullType)?.type as? ListType)?.type ?? (type as? ListType)?.type
            return .array(try list.values.map { try literal($0, type: itemType, schema: schema, variables: variables) })
        }
        var named = type
        while let wrapper = named as? NonNullType { named = wrapper.type }
        if let name = (named as? NamedType)?.name.value {
            if let scalar = schema.getType(name: name) as? GraphQLScalarType { return try scalar.parseLiteral(valueAST: value) }
            if let enumeration = schema.getType(name: name) as? GraphQLEnumType { return try enumeration.parseLiteral(valueAST: value) }
        }
        return try valueFromASTUntyped(valueAST: value, variables: variables)
    }

    /// A JSON value as a GraphQLSwift `Map`, telling booleans from numbers.
    private static func map(_ value: Any) -> Map {
        switch value {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let array as [Any]: return .array(array.map(map))
        case let object as [String: Any]:
            return .dictionary(OrderedDictionary(uniqueKeysWithValues: object.sorted { $0.key < $1.key }.map { ($0.key, map($0.value)) }))
        case let bool as Bool where type(of: value) == Bool.self: return .bool(bool)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return .double(number.doubleValue)
            default: return .int(number.intValue)
            }
        case let int as Int: return .int(int)
        case let double as Double: return .double(double)
        default: return .string("\(value)")
        }
    }

    private static func jsonText(_ value: Any) -> String {
        if let string = value as? String { return "\"\(string)\"" }
        if JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys, .withoutEscapingSlashes])
        {
            return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
        }
        return "\(value)"
    }

    // MARK: Errors

    /// GraphQLSwift words a syntax error the way early graphql-js did (`Syntax Error GraphQL
    /// (1:59) Expected Name, found <EOF>` and a source excerpt); servers today send the
    /// graphql-js 16 form, `Syntax Error: Expected Name, found <EOF>.` (the location is in
    /// `locations`).
    static func syntaxMessage(_ message: String) -> String {
        let firstLine = message.prefix { $0 != "\n" }
        guard firstLine.hasPrefix("Syntax Error "), let close = firstLine.range(of: ") ") else { return String(firstLine) }
        let description = firstLine[close.upperBound...].trimmingCharacters(in: .whitespaces)
        return "Syntax Error: " + description + (description.hasSuffix(".") ? "" : ".")
    }

    /// Where `node` starts in the document.
    static func location(of node: any Node) -> DocumentError.Location? {
        documentError(message: "", nodes: [node]).locations.first
    }

    static func documentError(_ error: GraphQLError) -> DocumentError {
        DocumentError(message: error.message, locations: error.locations.map { .init(line: $0.line, column: $0.column) })
    }

    static func documentError(message: String, nodes: [any Node]) -> DocumentError {
        documentError(GraphQLError(message: message, nodes: nodes))
    }

    static func failure(_ stage: DocumentFailure.Stage, _ message: String, nodes: [any Node] = []) -> DocumentFailure {
        DocumentFailure(stage: stage, errors: [documentError(message: message, nodes: nodes)])
    }
}

/// Collects fields as the GraphQL execution algorithm does (CollectFields) and turns them into
/// a ``ResultSelection``.
private struct Collector {
    let schema: GraphQLSchema
    let fragments: [String: FragmentDefinition]
    let variables: [String: Map]

    /// The fields of `sets` grouped by response key, in document order, after `@skip`/`@include`
    /// and with fragments inlined (each named fragment once).
    mutating func collect(_ sets: [SelectionSet]) throws -> OrderedDictionary<String, [Field]> {
        var fields: OrderedDictionary<String, [Field]> = [:]
        var visited: Set<String> = []
        for set in sets { try collect(set, into: &fields, visited: &visited) }
        return fields
    }

    private func collect(_ set: SelectionSet, into fields: inout OrderedDictionary<String, [Field]>, visited: inout Set<String>) throws {
        for selection in set.selections {
            switch selection {
            case let field as Field:
                guard try included(field.directives) else { continue }
                fields[field.alias?.value ?? field.name.value, default: []].append(field)
            case let spread as FragmentSpread:
                guard try included(spread.directives), visited.insert(spread.name.value).inserted,
                    let fragment = fragments[spread.name.value]
                else { continue }
                try collect(fragment.selectionSet, into: &fields, visited: &visited)
            case let inline as InlineFragment:
                guard try included(inline.directives) else { continue }
                try collect(inline.selectionSet, into: &fields, visited: &visited)
            default:
                continue
            }
        }
    }

    /// `@skip(if:)` and `@include(if:)`, with variables.
    private func included(_ directives: [Directive]) throws -> Bool {
        for directive in directives {
            guard let condition = directive.arguments.first(where: { $0.name.value == "if" }) else { continue }
            let value = try SubscriptionDocument.literal(condition.value, type: nil, schema: schema, variables: variables)
            guard case .bool(let flag) = value else { continue }
            if directive.name.value == "skip", flag { return false }
            if directive.name.value == "include", !flag { return false }
        }
        return true
    }

    /// The root field's one `ID!` argument as a string, variables substituted.
    func argument(_ name: String, of definition: GraphQLArgument, on field: Field) throws -> String {
        let typeText = definition.type.debugDescription
        // Validation (ProvidedRequiredArgumentsRule) has already refused a missing argument.
        guard let node = field.arguments.first(where: { $0.name.value == name }) else {
            throw SubscriptionDocument.failure(.validation, "Argument \"\(name)\" is missing.", nodes: [field])
        }
        switch try SubscriptionDocument.literal(node.value, type: nil, schema: schema, variables: variables) {
        case .string(let value):
            return value
        case .number(let number):
            return number.description
        case .undefined:
            let variable = (node.value as? Variable)?.name.value ?? ""
            throw SubscriptionDocument.failure(
                .execution,
                "Argument \"\(name)\" of required type \"\(typeText)\" was provided the variable \"$\(variable)\" which was not provided a runtime value.",
                nodes: [node.value])
        default:
            throw SubscriptionDocument.failure(
                .execution, "Argument \"\(name)\" of non-null type \"\(typeText)\" must not be null.", nodes: [node.value])
        }
    }

    /// The merged selection of every node under one response key, on `type`.
    mutating func selection(of nodes: [Field], on type: GraphQLObjectType) throws -> ResultSelection {
        let fields = try collect(nodes.compactMap(\.selectionSet))
        let definitions = try type.fields()
        var entries: [ResultSelection.Entry] = []
        for (key, group) in fields {
            let name = group[0].name.value
            if let other = group.first(where: { $0.name.value != name }) {
                throw SubscriptionDocument.failure(
                    .validation,
                    "Fields \"\(key)\" conflict because \"\(name)\" and \"\(other.name.value)\" are different fields. "
                        + "Use different aliases on the fields to fetch both if this was intentional.",
                    nodes: [group[0], other])
            }
            let location = SubscriptionDocument.location(of: group[0])
            if name == "__typename" {
                entries.append(.init(key: key, field: name, sub: nil, location: location))
            } else if let objectType = definitions[name].flatMap({ getNamedType(type: $0.type) }) as? GraphQLObjectType {
                entries.append(.init(key: key, field: name, sub: try selection(of: group, on: objectType), location: location))
            } else {
                entries.append(.init(key: key, field: name, sub: nil, location: location))
            }
        }
        return ResultSelection(typeName: type.name, entries: entries)
    }
}
