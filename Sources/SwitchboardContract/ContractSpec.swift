import Foundation
import OpenAPIKit
import Yams

/// Reads OpenAPI 3.1 documents of the event payloads: the one compiled into this module, or
/// another version from a file.
///
/// The bundled document is embedded in the code (SwiftPM's `embedInCode` resource rule), not
/// looked up in a resource bundle, so it is there wherever the `switchboard` binary is run or
/// copied to.
public enum ContractSpec {
    /// The name reports use for the bundled document.
    public static let bundledSourceName = "the bundled contract (appsync-events.openapi.yaml)"

    /// The bundled document's YAML text, exactly as it is in the repository.
    public static var bundledText: String {
        String(decoding: PackageResources.appsync_events_openapi_yaml, as: UTF8.self)
    }

    /// Decodes and validates the bundled document.
    /// - Returns: The document.
    /// - Throws: ``ContractError`` if it does not decode or validate (the tests make sure it does).
    public static func bundledDocument() throws(ContractError) -> OpenAPI.Document {
        try document(from: Data(PackageResources.appsync_events_openapi_yaml), source: bundledSourceName)
    }

    /// Reads, decodes and validates a document from a file.
    /// - Parameter url: A YAML or JSON file.
    /// - Returns: The document.
    /// - Throws: ``ContractError`` with code `unreadable`, `notOpenAPI` or `invalidOpenAPI`.
    public static func document(contentsOf url: URL) throws(ContractError) -> OpenAPI.Document {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ContractError(code: .unreadable, message: "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try document(from: data, source: url.path)
    }

    /// Decodes and validates a document.
    ///
    /// Text that starts with `{` is read as JSON, anything else as YAML. The document must
    /// decode as OpenAPI 3.1 (or 3.2) and pass OpenAPIKit's default validations, plus unique
    /// operation ids across webhooks.
    /// - Parameters:
    ///   - data: The YAML or JSON bytes.
    ///   - source: The name messages use for the document, such as its path.
    /// - Returns: The document.
    /// - Throws: ``ContractError`` with code `notOpenAPI` or `invalidOpenAPI`.
    public static func document(from data: Data, source: String) throws(ContractError) -> OpenAPI.Document {
        guard let text = String(data: data, encoding: .utf8) else {
            throw ContractError(code: .notOpenAPI, message: "\(source) is not UTF-8 text")
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw ContractError(code: .notOpenAPI, message: "\(source) is empty")
        }
        let document: OpenAPI.Document
        do {
            if text.first(where: { !$0.isWhitespace }) == "{" {
                document = try JSONDecoder().decode(OpenAPI.Document.self, from: data)
            } else {
                document = try YAMLDecoder().decode(OpenAPI.Document.self, from: text)
            }
        } catch {
            throw ContractError(
                code: .notOpenAPI, message: "\(source) is not an OpenAPI 3.1 document: \(reason(error))")
        }
        do {
            _ = try document.validate(using: Validator().validating(operationIdsAreUniqueWithWebhooks))
        } catch {
            throw ContractError(code: .invalidOpenAPI, message: "\(source) is not valid OpenAPI: \(reason(error))")
        }
        return document
    }

    /// OpenAPIKit's default validations check that operation ids are unique among `paths` only;
    /// this document's operations are webhooks, so they are included here.
    static var operationIdsAreUniqueWithWebhooks: Validation<OpenAPI.Document> {
        Validation(description: "Operation ids are unique across paths and webhooks") { context in
            let document = context.subject
            let pathItems = document.paths.values.compactMap { document.components[$0] }
                + document.webhooks.values.compactMap { document.components[$0] }
            let ids = pathItems.flatMap(\.endpoints).compactMap(\.operation.operationId)
            return Set(ids).count == ids.count
        }
    }

    /// OpenAPIKit's readable account of a decoding or validation error, with where it happened.
    static func reason(_ error: any Error) -> String {
        if let yaml = error as? YamlError {
            return "\(yaml)"
        }
        if case DecodingError.dataCorrupted(let context) = error, let yaml = context.underlyingError as? YamlError {
            return "\(yaml)"
        }
        let described = OpenAPI.Error(from: error)
        let path = described.codingPathString
        return path.isEmpty ? described.localizedDescription : "\(described.localizedDescription) (at \(path))"
    }
}

extension EventContract {
    /// The description of the bundled document.
    /// - Throws: ``ContractError`` if the bundled document does not load (the tests make sure it does).
    public static func bundled() throws(ContractError) -> EventContract {
        try EventContract(document: ContractSpec.bundledDocument(), source: ContractSpec.bundledSourceName)
    }

    /// Reads, validates and describes a YAML or JSON document.
    /// - Parameter url: The file.
    /// - Throws: ``ContractError``.
    public init(contentsOf url: URL) throws(ContractError) {
        try self.init(document: ContractSpec.document(contentsOf: url), source: url.path)
    }
}
