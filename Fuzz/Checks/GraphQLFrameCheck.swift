import Foundation
import SwitchboardCore
import SwitchboardGraphQL

/// GraphQL server frames: the first byte picks the dialect (its value modulo 3 indexes
/// ``GraphQLProtocol/allCases``, so the text seeds start with `0`, `1` or `2`), the rest is the
/// frame. A frame either fails to decode with a ``GraphQLCodecError`` or decodes to a message
/// that, written back out in the same dialect, decodes to the same message. A result's `data`
/// is compared as a JSON value: the codec hands it on as the bytes it arrived as.
package enum GraphQLFrameCheck {
    /// Checks one dialect byte and frame.
    /// - Throws: ``FuzzFinding`` when the property does not hold.
    package static func check(_ input: [UInt8]) throws(FuzzFinding) {
        guard let first = input.first else { return }
        let dialect = GraphQLProtocol.allCases[Int(first) % GraphQLProtocol.allCases.count]
        let codec = GraphQLCodec(dialect)
        guard let decoded = try? codec.decode(String(decoding: input.dropFirst(), as: UTF8.self)) else { return }
        let message = try canonical(decoded)
        try FuzzFinding.requireRoundTrip(
            message, label: "\(dialect): \(decoded)", written: frame(message, dialect: dialect)
        ) { text in try canonical(try codec.decode(text)) }
    }

    /// `message` with a result's `data` written out canonically (sorted keys), so that two
    /// spellings of the same JSON value compare equal.
    /// - Throws: ``FuzzFinding`` when the `data` the codec handed on is not JSON.
    package static func canonical(_ message: GraphQLServerMessage) throws(FuzzFinding) -> GraphQLServerMessage {
        guard case .next(let id, let data?, let errors) = message else { return message }
        do {
            let canonical = try parse(String(decoding: data.bytes, as: UTF8.self), "next data").serialized()
            return .next(id: id, data: ResultData(canonical), errors: errors)
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("the decoded next data cannot be written out: \(error)")
        }
    }

    /// The frame a server speaking `dialect` would send for `message`.
    /// - Throws: ``FuzzFinding`` when a JSON text the message carries does not parse.
    package static func frame(_ message: GraphQLServerMessage, dialect: GraphQLProtocol) throws(FuzzFinding) -> String {
        var frame: [String: JSONValue]
        switch message {
        case .connectionAck(let window):
            frame = ["type": .string("connection_ack")]
            if let window {
                let (seconds, attoseconds) = window.components
                frame["payload"] = .object(["connectionTimeoutMs": .integer(seconds * 1000 + attoseconds / 1_000_000_000_000_000)])
            }
        case .connectionError(let errors):
            frame = ["type": .string("connection_error"), "payload": .array(errors.map(errorObject))]
        case .keepAlive:
            frame = ["type": .string("ka")]
        case .ping(let payload):
            frame = ["type": .string("ping")]
            if let payload { frame["payload"] = try parse(payload, "ping payload") }
        case .pong:
            frame = ["type": .string("pong")]
        case .subscriptionAck(let id):
            frame = ["type": .string("start_ack"), "id": .string(id)]
        case .next(let id, let data, let errors):
            var payload: [String: JSONValue] = ["data": .null]
            if let data { payload["data"] = try parse(String(decoding: data.bytes, as: UTF8.self), "next data") }
            if !errors.isEmpty { payload["errors"] = .array(errors.map(errorObject)) }
            let type = dialect == .graphQLTransportWS ? "next" : "data"
            frame = ["type": .string(type), "id": .string(id), "payload": .object(payload)]
        case .error(let id, let errors):
            frame = ["type": .string("error"), "payload": .array(errors.map(errorObject))]
            if let id { frame["id"] = .string(id) }
        case .complete(let id):
            frame = ["type": .string("complete"), "id": .string(id)]
        }
        do {
            return try JSONValue.object(frame).text()
        } catch {
            throw FuzzFinding("\(message) cannot be written as JSON: \(error)")
        }
    }

    private static func parse(_ text: String, _ what: String) throws(FuzzFinding) -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw FuzzFinding("the decoded \(what) is not JSON: \(text)")
        }
    }

    private static func errorObject(_ error: GraphQLServerError) -> JSONValue {
        var object: [String: JSONValue] = ["message": .string(error.message)]
        if let type = error.errorType { object["errorType"] = .string(type) }
        if let code = error.errorCode { object["errorCode"] = .integer(Int64(code)) }
        return .object(object)
    }
}
