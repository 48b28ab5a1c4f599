/// A spec that could not be read, parsed, validated or described.
///
/// The ``code`` says which step failed; the ``message`` names the file and the reason, and is
/// what the `switchboard` tool prints.
public struct ContractError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The step that failed.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case unreadable, notOpenAPI, invalidOpenAPI, unsupportedSchema
        }

        private let value: Value

        /// The file could not be read.
        public static let unreadable = Code(value: .unreadable)
        /// The text is not YAML or JSON, or does not decode as an OpenAPI 3.1 document.
        public static let notOpenAPI = Code(value: .notOpenAPI)
        /// The document decodes but fails OpenAPIKit's validation.
        public static let invalidOpenAPI = Code(value: .invalidOpenAPI)
        /// A schema uses a reference that cannot be resolved inside the document.
        public static let unsupportedSchema = Code(value: .unsupportedSchema)

        /// The code's name, such as `notOpenAPI`.
        public var description: String { value.rawValue }
    }

    /// The step that failed.
    public var code: Code
    /// What went wrong, naming the source.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The step that failed.
    ///   - message: What went wrong, naming the source.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}
