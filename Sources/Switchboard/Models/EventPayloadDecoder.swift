import Foundation
import SwitchboardCore

/// Turns the raw JSON an ``EventEnvelope`` carries into a typed model.
///
/// Every failure becomes a ``SwitchboardError`` with code ``SwitchboardError/Code/decodingFailed``,
/// a message naming the type and the failing field, and the `DecodingError` as its cause.
package enum EventPayloadDecoder {
    /// Decodes a payload.
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - data: The JSON bytes: the event object.
    /// - Returns: The decoded model.
    /// - Throws: ``SwitchboardError`` with code `.decodingFailed`.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(SwitchboardError) -> T {
        try decode(type, from: data, document: JSONDocument(data))
    }

    /// Decodes a catalog model's payload, as the notifier does (through ``PayloadFields``).
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - data: The JSON bytes: the event object.
    /// - Returns: The decoded model.
    /// - Throws: ``SwitchboardError`` with code `.decodingFailed`.
    package static func decode<T: PayloadDecodable>(_ type: T.Type, from data: Data) throws(SwitchboardError) -> T {
        try decode(type, from: data, document: JSONDocument(data))
    }

    /// Decodes a payload that was already parsed.
    ///
    /// The models are read straight from `document` (``DocumentDecoder``); `JSONDecoder` reads
    /// `data` only when that path declines, and then gives the value or the error.
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - data: The JSON bytes: the event object, made only if `JSONDecoder` must read them.
    ///   - document: `data` parsed by ``JSONDocument``, or nil when it left `data` to `JSONDecoder`.
    /// - Returns: The decoded model.
    /// - Throws: ``SwitchboardError`` with code `.decodingFailed`.
    package static func decode<T: Decodable>(
        _ type: T.Type, from data: @autoclosure () -> Data, document: JSONDocument?
    ) throws(SwitchboardError) -> T {
        if let document,
           let value = DocumentDecoder.decode(T.self, from: document, at: document.root) {
            return value
        }
        return try decodeWithJSONDecoder(type, from: data())
    }

    /// Decodes a model that reads its fields through ``PayloadFields`` (every catalog model):
    /// straight from `document` (``DocumentFields``), or with `JSONDecoder` where that declines.
    /// - Parameters:
    ///   - type: The model to decode.
    ///   - data: The JSON bytes: the event object, made only if `JSONDecoder` must read them.
    ///   - document: `data` parsed by ``JSONDocument``, or nil when it left `data` to `JSONDecoder`.
    /// - Returns: The decoded model.
    /// - Throws: ``SwitchboardError`` with code `.decodingFailed`.
    package static func decode<T: PayloadDecodable>(
        _ type: T.Type, from data: @autoclosure () -> Data, document: JSONDocument?
    ) throws(SwitchboardError) -> T {
        if let document,
           let fields = DocumentFields(document, document.root), let value = try? T(document: fields) {
            return value
        }
        return try decodeWithJSONDecoder(type, from: data())
    }

    /// Decodes with `JSONDecoder` alone, which gives the value or the precise error: what the
    /// fast paths must agree with.
    package static func decodeWithJSONDecoder<T: Decodable>(_ type: T.Type, from data: Data) throws(SwitchboardError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw SwitchboardError(
                code: .decodingFailed,
                message: "Could not decode \(T.self): \(describe(error))",
                cause: error
            )
        } catch {
            throw SwitchboardError(code: .decodingFailed, message: "Could not decode \(T.self): \(error)", cause: error)
        }
    }

    /// Lists the top-level fields of a JSON object that are not in `known`, for debug logging.
    /// - Parameters:
    ///   - data: The JSON bytes.
    ///   - known: The field names the model understands, such as a model's `knownFieldNames`.
    /// - Returns: The unknown field names, sorted; empty when the data is not a JSON object.
    package static func unknownFields(in data: Data, known: Set<String>) -> [String] {
        guard let fields = try? JSONDecoder().decode(FieldNames.self, from: data) else { return [] }
        return fields.names.subtracting(known).sorted()
    }

    /// Describes a decoding error by the path of the field that failed.
    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            return "the payload is not a JSON object: \(context.debugDescription)"
        case .typeMismatch(let type, let context):
            return "field '\(path(context.codingPath))' has the wrong type (expected \(type)): \(context.debugDescription)"
        case .valueNotFound(_, let context):
            return "required field '\(path(context.codingPath))' is null"
        case .keyNotFound(let key, let context):
            return "required field '\(path(context.codingPath + [key]))' is missing"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "the payload is not valid JSON: \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "field '\(path(context.codingPath))' is invalid: \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// Renders a coding path as `a.b[0].c`.
    private static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "<root>" : text
    }

    /// The top-level field names of an object.
    private struct FieldNames: Decodable {
        var names: Set<String>

        init(from decoder: any Decoder) throws {
            names = Set(try decoder.container(keyedBy: PayloadKey.self).allKeys.map(\.stringValue))
        }
    }
}
