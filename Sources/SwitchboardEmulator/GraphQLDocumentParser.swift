/// Parses a legacy subscription document and validates it against ``LegacySchema``; pure.
struct GraphQLDocumentParser {
    private enum Token: Equatable {
        case name(String)
        case punctuator(Character)
        case string(String)
        case end
    }

    private var tokens: [(token: Token, line: Int, column: Int)] = []
    private var index = 0

    /// Parses `query` with `variables`, returning the one subscription it selects.
    static func parse(_ query: String, variables: [String: Any]) -> Result<LegacySubscription, GraphQLError> {
        do {
            var parser = try GraphQLDocumentParser(query)
            return .success(try parser.document(variables: variables))
        } catch let error as GraphQLError {
            return .failure(error)
        } catch {
            return .failure(GraphQLError(message: "\(error)", line: 1, column: 1))
        }
    }

    private init(_ text: String) throws {
        var line = 1, column = 1
        var characters = Array(text)[...]
        func advance() {
            let character = characters.removeFirst()
            if character == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        while let character = characters.first {
            if character.isWhitespace || character == "," { advance(); continue }
            if character == "#" {
                while let next = characters.first, next != "\n" { advance() }
                continue
            }
            let start = (line, column)
            if character.isLetter || character == "_" {
                var name = ""
                while let next = characters.first, next.isLetter || next.isNumber || next == "_" { name.append(next); advance() }
                tokens.append((.name(name), start.0, start.1))
            } else if character == "\"" {
                advance()
                var value = ""
                while let next = characters.first, next != "\"" { value.append(next); advance() }
                guard !characters.isEmpty else { throw GraphQLError(message: "Syntax Error: Unterminated string.", line: start.0, column: start.1) }
                advance()
                tokens.append((.string(value), start.0, start.1))
            } else if "{}()$:!".contains(character) {
                advance()
                tokens.append((.punctuator(character), start.0, start.1))
            } else {
                throw GraphQLError(message: "Syntax Error: Unexpected character \"\(character)\".", line: start.0, column: start.1)
            }
        }
        tokens.append((.end, line, column))
    }

    private var current: (token: Token, line: Int, column: Int) { tokens[index] }

    private func unexpected() -> GraphQLError {
        let description: String
        switch current.token {
        case .name(let name): description = "Name \"\(name)\""
        case .punctuator(let character): description = "\"\(character)\""
        case .string(let value): description = "String \"\(value)\""
        case .end: description = "<EOF>"
        }
        return GraphQLError(message: "Syntax Error: Unexpected \(description).", line: current.line, column: current.column)
    }

    private mutating func expect(_ character: Character) throws {
        guard current.token == .punctuator(character) else { throw unexpected() }
        index += 1
    }

    private mutating func name() throws -> String {
        guard case .name(let name) = current.token else { throw unexpected() }
        index += 1
        return name
    }

    private mutating func document(variables: [String: Any]) throws -> LegacySubscription {
        if case .name(let keyword) = current.token {
            guard keyword == "subscription" else {
                throw GraphQLError(
                    message: "Schema is not configured to execute \(keyword) operation.", line: current.line, column: current.column)
            }
            index += 1
            if case .name = current.token { index += 1 }
            if current.token == .punctuator("(") {
                index += 1
                while current.token != .punctuator(")") {
                    try expect("$"); _ = try name(); try expect(":"); _ = try name()
                    if current.token == .punctuator("!") { index += 1 }
                }
                index += 1
            }
        } else if current.token == .punctuator("{") {
            throw GraphQLError(message: "Schema is not configured to execute query operation.", line: current.line, column: current.column)
        }
        try expect("{")
        let fieldLine = current.line, fieldColumn = current.column
        let field = try name()
        guard let definition = LegacySchema.subscriptions[field] else {
            throw GraphQLError(
                message: "Cannot query field \"\(field)\" on type \"Subscription\".", line: fieldLine, column: fieldColumn)
        }
        var argument: String?
        if current.token == .punctuator("(") {
            index += 1
            while current.token != .punctuator(")") {
                let argumentLine = current.line, argumentColumn = current.column
                let argumentName = try name()
                try expect(":")
                guard argumentName == definition.argument else {
                    throw GraphQLError(
                        message: "Unknown argument \"\(argumentName)\" on field \"Subscription.\(field)\".",
                        line: argumentLine, column: argumentColumn)
                }
                argument = try value(variables: variables)
            }
            index += 1
        }
        guard let argument else {
            throw GraphQLError(
                message: "Field \"\(field)\" argument \"\(definition.argument)\" of type \"ID!\" is required, but it was not provided.",
                line: fieldLine, column: fieldColumn)
        }
        guard current.token == .punctuator("{") else {
            throw GraphQLError(
                message: "Field \"\(field)\" of type \"\(field.dropFirst("subscribe".count))\" must have a selection of subfields.",
                line: fieldLine, column: fieldColumn)
        }
        let selection = try selectionSet(definition.fields, typeName: String(field.dropFirst("subscribe".count)))
        try expect("}")
        guard current.token == .end else { throw unexpected() }
        return LegacySubscription(field: field, argument: argument, selection: selection)
    }

    private mutating func value(variables: [String: Any]) throws -> String {
        switch current.token {
        case .string(let value):
            index += 1
            return value
        case .punctuator("$"):
            index += 1
            let line = current.line, column = current.column
            let variable = try name()
            if let value = variables[variable] as? String { return value }
            if let value = variables[variable] as? Int { return String(value) }
            throw GraphQLError(
                message: "Variable \"$\(variable)\" of required type \"ID!\" was not provided.", line: line, column: column - 1)
        default:
            throw unexpected()
        }
    }

    private mutating func selectionSet(_ fields: [String: LegacySchema.FieldType], typeName: String) throws -> Selection {
        try expect("{")
        var selection = Selection(fields: [])
        while current.token != .punctuator("}") {
            let line = current.line, column = current.column
            let fieldName = try name()
            guard let type = fields[fieldName] else {
                throw GraphQLError(message: "Cannot query field \"\(fieldName)\" on type \"\(typeName)\".", line: line, column: column)
            }
            switch type {
            case .leaf:
                guard current.token != .punctuator("{") else {
                    throw GraphQLError(message: "Field \"\(fieldName)\" must not have a selection since its type is a scalar.", line: line, column: column)
                }
                selection.fields.append((fieldName, nil))
            case .object(let subfields):
                guard current.token == .punctuator("{") else {
                    throw GraphQLError(message: "Field \"\(fieldName)\" must have a selection of subfields.", line: line, column: column)
                }
                selection.fields.append((fieldName, try selectionSet(subfields, typeName: fieldName)))
            }
        }
        index += 1
        return selection
    }
}
