import OpenAPIKit

extension EventContract {
    /// The vendor extension on a webhook operation that names its AppSync channel.
    public static let channelExtension = "x-appsync-channel"

    /// Describes the event payloads of a document.
    ///
    /// An event is a schema whose `eventType` property allows exactly one value (`const`, or an
    /// `enum` of one); that value identifies it. Component schemas are read first, in document
    /// order, then request bodies of webhooks (for events defined inline there). A webhook
    /// operation's ``channelExtension`` gives the channel of the event its request body holds.
    /// - Parameters:
    ///   - document: A decoded document, such as ``ContractSpec/document(contentsOf:)`` returns.
    ///   - source: The name messages use for the document.
    /// - Throws: ``ContractError`` with code `unsupportedSchema` when a reference cannot be
    ///   resolved inside the document.
    public init(document: OpenAPI.Document, source: String = "the document") throws(ContractError) {
        let components = document.components
        var events: [Event] = []
        var channels: [String: String] = [:]

        func resolve(_ schema: JSONSchema, at location: String) throws(ContractError) -> DereferencedJSONSchema {
            do {
                return try schema.dereferenced(in: components)
            } catch {
                throw ContractError(
                    code: .unsupportedSchema,
                    message: "\(source): cannot resolve the schema at \(location): \(ContractSpec.reason(error))")
            }
        }

        func add(_ schema: DereferencedJSONSchema, named name: String) -> String? {
            let root = Self.field(named: name, from: schema)
            guard root.type == .object, let eventType = root[field: "eventType"]?.singleValue else { return nil }
            if !events.contains(where: { $0.eventType == eventType }) {
                events.append(Event(eventType: eventType, schemaName: name, channel: nil, fields: root.fields))
            }
            return eventType
        }

        for (key, schema) in components.schemas {
            _ = add(try resolve(schema, at: "#/components/schemas/\(key.rawValue)"), named: key.rawValue)
        }
        for (name, entry) in document.webhooks {
            guard let pathItem = components[entry] else { continue }
            for endpoint in pathItem.endpoints {
                let channel = endpoint.operation.vendorExtensions[Self.channelExtension]?.value as? String
                guard let body = endpoint.operation.requestBody.flatMap({ components[$0] }) else { continue }
                for (contentType, entry) in body.content {
                    guard let schema = components[entry]?.schema else { continue }
                    let location = "webhooks.\(name).\(endpoint.method.rawValue.lowercased()).requestBody.\(contentType.rawValue)"
                    if let eventType = add(try resolve(schema, at: location), named: name), let channel {
                        channels[eventType] = channels[eventType] ?? channel
                    }
                }
            }
        }
        for index in events.indices {
            events[index].channel = channels[events[index].eventType]
        }
        self.init(title: document.info.title, version: document.info.version, events: events)
    }

    /// Reduces a resolved schema to a field.
    static func field(named name: String, from schema: DereferencedJSONSchema) -> Field {
        switch schema {
        case .null(let core):
            return field(name, .null, core)
        case .boolean(let core):
            return field(name, .boolean, core)
        case .string(let core, _):
            return field(name, .string, core)
        case .number(let core, let numeric):
            var result = field(name, .number, core)
            result.minimum = numeric.minimum.map { Bound($0.value, isExclusive: $0.exclusive) }
            result.maximum = numeric.maximum.map { Bound($0.value, isExclusive: $0.exclusive) }
            return result
        case .integer(let core, let integer):
            var result = field(name, .integer, core)
            result.minimum = integer.minimum.map { Bound(Double($0.value), isExclusive: $0.exclusive) }
            result.maximum = integer.maximum.map { Bound(Double($0.value), isExclusive: $0.exclusive) }
            return result
        case .object(let core, let object):
            var result = field(name, .object, core)
            result.fields = object.properties.map { field(named: $0.key, from: $0.value) }
            return result
        case .array(let core, let array):
            var result = field(name, .array, core)
            result.items = array.items.map { field(named: "[]", from: $0) }
            return result
        case .all(of: let parts, core: let core):
            return merged(name, parts.map { field(named: name, from: $0) }, core)
        case .one(of: let parts, core: let core):
            return alternatives(name, "oneOf", parts.map { field(named: name, from: $0) }, core)
        case .any(of: let parts, core: let core):
            return alternatives(name, "anyOf", parts.map { field(named: name, from: $0) }, core)
        case .not(let negated, core: let core):
            return field(name, ValueType(rawValue: "not(\(field(named: name, from: negated).typeText))"), core)
        case .fragment(let core):
            return field(name, .any, core)
        }
    }

    /// The parts every schema shares: format, requiredness, nullability, allowed values.
    private static func field<Format>(_ name: String, _ type: ValueType, _ core: JSONSchema.CoreContext<Format>) -> Field {
        let format = core.formatString.flatMap { $0.isEmpty ? nil : $0 }
        return Field(
            name: name, type: type, format: format, isRequired: core.required, isNullable: core.nullable,
            enumValues: core.allowedValues.map { $0.map(text(of:)) })
    }

    /// `allOf`: objects (and untyped parts, which only add `required`) merge into one object;
    /// anything else stays a composition.
    private static func merged(_ name: String, _ parts: [Field], _ core: JSONSchema.CoreContext<JSONTypeFormat.AnyFormat>) -> Field {
        var result = field(name, .object, core)
        guard parts.allSatisfy({ $0.type == .object || $0.type == .any }) else {
            result.type = ValueType(rawValue: "allOf(\(parts.map(\.typeText).joined(separator: ", ")))")
            return result
        }
        for part in parts {
            for property in part.fields {
                if let index = result.fields.firstIndex(where: { $0.name == property.name }) {
                    let known = result.fields[index]
                    var combined = known.type == .any ? property : known
                    combined.isRequired = known.isRequired || property.isRequired
                    result.fields[index] = combined
                } else {
                    result.fields.append(property)
                }
            }
        }
        return result
    }

    /// `oneOf` / `anyOf`: one schema or `null` is that schema, nullable; anything else stays a
    /// composition.
    private static func alternatives(
        _ name: String, _ keyword: String, _ parts: [Field], _ core: JSONSchema.CoreContext<JSONTypeFormat.AnyFormat>
    ) -> Field {
        let nonNull = parts.filter { $0.type != .null }
        if nonNull.count == 1, parts.count == 2 {
            var result = nonNull[0]
            result.isNullable = true
            result.isRequired = core.required
            return result
        }
        var result = field(name, .any, core)
        result.type = ValueType(rawValue: "\(keyword)(\(parts.map(\.typeText).joined(separator: ", ")))")
        return result
    }

    /// An allowed value as text: a string as itself, anything else as JSON would write it.
    private static func text(of value: AnyCodable) -> String {
        switch value.value {
        case let string as String: string
        case let bool as Bool: bool ? "true" : "false"
        case let int as Int: String(int)
        case let double as Double: String(double)
        default: "\(value)"
        }
    }
}

extension EventContract.Field {
    /// The one value a `const` (or one-value `enum`) allows.
    var singleValue: String? {
        guard let enumValues, enumValues.count == 1 else { return nil }
        return enumValues[0]
    }
}
