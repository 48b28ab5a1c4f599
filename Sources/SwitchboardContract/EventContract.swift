/// The event payloads a spec describes, reduced to what the contract is about: for each
/// `eventType`, its channel and its fields with their JSON type, format, requiredness, enum
/// values and bounds, nested objects and arrays included.
///
/// Two specs that say the same about the payloads give equal values, whatever their layout:
/// `$ref`s are resolved, `allOf` parts are merged, and descriptions, examples and the order of
/// keys are left out. ``ContractDrift`` compares two of them.
public struct EventContract: Hashable, Sendable {
    /// The document's title, for reports.
    public var title: String
    /// The document's version, for reports.
    public var version: String
    /// The events, in the order the document declares them.
    public var events: [Event]

    /// Creates a description.
    /// - Parameters:
    ///   - title: The document's title.
    ///   - version: The document's version.
    ///   - events: The events.
    public init(title: String, version: String, events: [Event]) {
        self.title = title
        self.version = version
        self.events = events
    }

    /// The event with an `eventType`, if the spec has it.
    /// - Parameter eventType: The `eventType`, such as `archive/stateChanged`.
    public subscript(eventType: String) -> Event? {
        events.first { $0.eventType == eventType }
    }

    /// Every `eventType`, in document order.
    public var eventTypes: [String] { events.map(\.eventType) }

    /// One event payload: a schema whose `eventType` property has a single allowed value.
    public struct Event: Hashable, Sendable {
        /// The value of the payload's `eventType`, such as `archive/stateChanged`.
        public var eventType: String
        /// The component schema that describes it, such as `ArchiveStateChanged`.
        public var schemaName: String
        /// The channel that carries it (the webhook's `x-appsync-channel`), if the spec says.
        public var channel: String?
        /// The payload's top-level fields, in document order.
        public var fields: [Field]

        /// Creates an event.
        /// - Parameters:
        ///   - eventType: The value of the payload's `eventType`.
        ///   - schemaName: The component schema that describes it.
        ///   - channel: The channel that carries it.
        ///   - fields: The payload's top-level fields.
        public init(eventType: String, schemaName: String, channel: String?, fields: [Field]) {
            self.eventType = eventType
            self.schemaName = schemaName
            self.channel = channel
            self.fields = fields
        }

        /// The top-level field with a name, if the payload has it.
        /// - Parameter name: The wire name, such as `videoSize`.
        public subscript(field name: String) -> Field? {
            fields.first { $0.name == name }
        }
    }

    /// One field of a payload, or of an object nested in one.
    public struct Field: Hashable, Sendable, CustomStringConvertible {
        /// The wire name; `[]` for an array's items.
        public var name: String
        /// The JSON type.
        public var type: ValueType
        /// The `format`, such as `int64` or `date-time`, if any.
        public var format: String?
        /// Whether the field must be present.
        public var isRequired: Bool
        /// Whether the field may be `null`.
        public var isNullable: Bool
        /// The allowed values (`enum`, or `const` as one value), as JSON text; nil when any
        /// value of the type is allowed.
        public var enumValues: [String]?
        /// The lower bound of a number or integer.
        public var minimum: Bound?
        /// The upper bound of a number or integer.
        public var maximum: Bound?
        /// An object's properties, in document order.
        public var fields: [Field]
        private var itemStorage: [Field]

        /// Creates a field.
        /// - Parameters:
        ///   - name: The wire name.
        ///   - type: The JSON type.
        ///   - format: The `format`, if any.
        ///   - isRequired: Whether the field must be present.
        ///   - isNullable: Whether the field may be `null`.
        ///   - enumValues: The allowed values, as JSON text.
        ///   - minimum: The lower bound.
        ///   - maximum: The upper bound.
        ///   - fields: An object's properties.
        ///   - items: An array's items.
        public init(
            name: String, type: ValueType, format: String? = nil, isRequired: Bool = false,
            isNullable: Bool = false, enumValues: [String]? = nil, minimum: Bound? = nil,
            maximum: Bound? = nil, fields: [Field] = [], items: Field? = nil
        ) {
            self.name = name
            self.type = type
            self.format = format
            self.isRequired = isRequired
            self.isNullable = isNullable
            self.enumValues = enumValues
            self.minimum = minimum
            self.maximum = maximum
            self.fields = fields
            self.itemStorage = items.map { [$0] } ?? []
        }

        /// An array's items.
        public var items: Field? {
            get { itemStorage.first }
            set { itemStorage = newValue.map { [$0] } ?? [] }
        }

        /// The nested property with a name, if this object has it.
        /// - Parameter name: The wire name.
        public subscript(field name: String) -> Field? {
            fields.first { $0.name == name }
        }

        /// The shape without the name, as reports print it: `integer (int64), optional`,
        /// `string, required, one of [Pending, Ready]`, `integer, optional, -1...14`.
        public var shape: String {
            var parts = [typeText, isRequired ? "required" : "optional"]
            if let enumValues { parts.append("one of [\(enumValues.joined(separator: ", "))]") }
            if let range = rangeText { parts.append(range) }
            return parts.joined(separator: ", ")
        }

        /// `name: shape`.
        public var description: String { "\(name): \(shape)" }

        /// The type with its format and nullability: `integer (int64)`, `string or null`.
        var typeText: String {
            var text = type.rawValue
            if let format { text += " (\(format))" }
            if isNullable { text += " or null" }
            return text
        }

        /// The bounds as text (`-1...14`, `> 0`), nil when there are none.
        var rangeText: String? {
            switch (minimum, maximum) {
            case (nil, nil): nil
            case let (min?, max?) where !min.isExclusive && !max.isExclusive: "\(min.valueText)...\(max.valueText)"
            case let (min?, max?): "\(min.lowerText) and \(max.upperText)"
            case let (min?, nil): min.lowerText
            case let (nil, max?): max.upperText
            }
        }
    }

    /// A bound of a number or integer.
    public struct Bound: Hashable, Sendable {
        /// The bound.
        public var value: Double
        /// Whether the bound itself is excluded.
        public var isExclusive: Bool

        /// Creates a bound.
        /// - Parameters:
        ///   - value: The bound.
        ///   - isExclusive: Whether the bound itself is excluded.
        public init(_ value: Double, isExclusive: Bool = false) {
            self.value = value
            self.isExclusive = isExclusive
        }

        var valueText: String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }

        var lowerText: String { (isExclusive ? "> " : ">= ") + valueText }
        var upperText: String { (isExclusive ? "< " : "<= ") + valueText }
    }

    /// A JSON Schema type, or a composition the description does not take apart.
    public struct ValueType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The name: `string`, `integer`, …, or a composition such as `oneOf(string, integer)`.
        public var rawValue: String
        /// Creates a type from its name.
        /// - Parameter rawValue: The name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `string`.
        public static let string = ValueType(rawValue: "string")
        /// `integer`.
        public static let integer = ValueType(rawValue: "integer")
        /// `number`.
        public static let number = ValueType(rawValue: "number")
        /// `boolean`.
        public static let boolean = ValueType(rawValue: "boolean")
        /// `object`.
        public static let object = ValueType(rawValue: "object")
        /// `array`.
        public static let array = ValueType(rawValue: "array")
        /// `null`.
        public static let null = ValueType(rawValue: "null")
        /// A schema with no type constraint (`{}`).
        public static let any = ValueType(rawValue: "any")

        /// The name.
        public var description: String { rawValue }
    }
}
