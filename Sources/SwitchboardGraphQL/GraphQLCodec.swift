import Foundation
import SwitchboardCore

/// Encodes and decodes the frames of one dialect. Pure: no I/O, no clock.
package struct GraphQLCodec: Sendable {
    let dialect: GraphQLProtocol

    package init(_ dialect: GraphQLProtocol) { self.dialect = dialect }

    /// The JSON text of a client frame.
    func encode(_ message: GraphQLClientMessage) throws -> String {
        var frame: [String: JSONValue] = [:]
        switch message {
        case .connectionInit(let token):
            frame["type"] = .string("connection_init")
            if dialect != .appSyncGraphQL, let token {
                frame["payload"] = .object(["Authorization": .string(token)])
            }
        case .subscribe(let id, let operation, let authorization):
            frame["id"] = .string(id)
            frame["type"] = .string(dialect == .graphQLTransportWS ? "subscribe" : "start")
            frame["payload"] = try subscribePayload(operation, authorization: authorization)
        case .unsubscribe(let id):
            frame["id"] = .string(id)
            frame["type"] = .string(dialect == .graphQLTransportWS ? "complete" : "stop")
        case .ping:
            frame["type"] = .string("ping")
        case .pong(let payload):
            frame["type"] = .string("pong")
            if let payload { frame["payload"] = try JSONValue.parse(payload) }
        case .terminate:
            frame["type"] = .string("connection_terminate")
        }
        return try JSONValue.object(frame).text()
    }

    private func subscribePayload(_ operation: GraphQLOperation, authorization: [String: String]?) throws -> JSONValue {
        var request: [String: JSONValue] = ["query": .string(operation.query)]
        request["variables"] = .object(operation.variables.mapValues(JSONValue.string))
        if let name = operation.operationName { request["operationName"] = .string(name) }
        guard dialect == .appSyncGraphQL else { return .object(request) }
        // AppSync: `data` is the request as a JSON string; auth rides in `extensions`.
        let auth = (authorization ?? [:]).mapValues(JSONValue.string)
        return .object([
            "data": .string(try JSONValue.object(request).text()),
            "extensions": .object(["authorization": .object(auth)]),
        ])
    }

    /// Decodes a server frame.
    /// - Throws: ``GraphQLCodecError`` for malformed JSON, a missing `type`/`id` or an unknown type.
    package func decode(_ text: String) throws(GraphQLCodecError) -> GraphQLServerMessage {
        if let result = decodeResult(text) { return result }
        let frame: JSONValue
        do {
            frame = try JSONValue.parse(text)
        } catch {
            throw GraphQLCodecError(message: "\(dialect) frame is not valid JSON")
        }
        guard case .object = frame else { throw GraphQLCodecError(message: "\(dialect) frame is not a JSON object") }
        guard let type = frame["type"]?.string else { throw GraphQLCodecError(message: "\(dialect) frame has no type") }
        let payload = frame["payload"]
        switch type {
        case "connection_ack":
            return .connectionAck(keepAliveWindow: Self.keepAliveWindow(payload))
        case "connection_error" where dialect != .graphQLTransportWS:
            return .connectionError(Self.errors(payload, fallback: "connection rejected"))
        case "ka" where dialect != .graphQLTransportWS:
            return .keepAlive
        case "ping" where dialect == .graphQLTransportWS:
            return .ping(payload: try Self.text(payload))
        case "pong" where dialect == .graphQLTransportWS:
            return .pong
        case "start_ack" where dialect == .appSyncGraphQL:
            return .subscriptionAck(id: try Self.id(frame, type))
        case "data" where dialect != .graphQLTransportWS, "next" where dialect == .graphQLTransportWS:
            let id = try Self.id(frame, type)
            guard case .object = payload else { throw GraphQLCodecError(message: "\(type) frame for \(id) has no payload object") }
            let data: Data?
            if let value = payload?["data"], !value.isNull {
                do { data = try value.serialized() } catch { throw GraphQLCodecError(message: "\(type) data is not serialisable") }
            } else {
                data = nil
            }
            return .next(id: id, data: data.map(ResultData.init), errors: Self.errorList(payload?["errors"]))
        case "error":
            let id = frame["id"]?.string
            if id == nil && dialect != .appSyncGraphQL { throw GraphQLCodecError(message: "error frame has no id") }
            return .error(id: id, errors: Self.errors(payload, fallback: "operation failed"))
        case "complete":
            return .complete(id: try Self.id(frame, type))
        default:
            throw GraphQLCodecError(message: "unknown \(dialect) message type '\(type)'")
        }
    }

    /// A `data`/`next` frame with a non-null `data` and no `errors`, read in one pass: every event
    /// arrives this way. `data` is handed on as the frame's parse of it, its bytes as they arrived
    /// (not written out again as the general path does, with sorted keys, and copied out only if
    /// read). Nil leaves the frame to the general path (``JSONDocument``
    /// answers only for text that path would accept).
    private func decodeResult(_ text: String) -> GraphQLServerMessage? {
        guard let frame = JSONDocument(text),
              let type = frame.member("type", of: frame.root).flatMap(frame.string),
              type == (dialect == .graphQLTransportWS ? "next" : "data"),
              let id = frame.member("id", of: frame.root).flatMap(frame.string), !id.isEmpty,
              let payload = frame.member("payload", of: frame.root), frame.kind(payload) == .object,
              let data = frame.member("data", of: payload), frame.kind(data) != .null,
              frame.member("errors", of: payload) == nil
        else { return nil }
        return .next(id: id, data: ResultData(frame: frame, data: data), errors: [])
    }

    private static func id(_ frame: JSONValue, _ type: String) throws(GraphQLCodecError) -> String {
        guard let id = frame["id"]?.string, !id.isEmpty else { throw GraphQLCodecError(message: "\(type) frame has no id") }
        return id
    }

    private static func text(_ payload: JSONValue?) throws(GraphQLCodecError) -> String? {
        guard let payload, !payload.isNull else { return nil }
        do { return try payload.text() } catch { throw GraphQLCodecError(message: "payload is not serialisable") }
    }

    private static func keepAliveWindow(_ payload: JSONValue?) -> Duration? {
        switch payload?["connectionTimeoutMs"] {
        case .integer(let ms)?: ms > 0 ? .milliseconds(ms) : nil
        case .number(let ms)?: Int64(exactly: ms).flatMap { $0 > 0 ? .milliseconds($0) : nil }
        default: nil
        }
    }

    /// Errors of an `error`/`connection_error` payload: an array (transport-ws), `{errors: [...]}` or
    /// `{errors: {...}}` (AppSync), or one error object (legacy).
    private static func errors(_ payload: JSONValue?, fallback: String) -> [GraphQLServerError] {
        let list: [GraphQLServerError]
        switch payload {
        case .array?: list = errorList(payload)
        case .object?:
            if let nested = payload?["errors"] { list = errorList(nested) } else { list = errorList(payload) }
        case .string(let message)?: list = [GraphQLServerError(message: message)]
        default: list = []
        }
        return list.isEmpty ? [GraphQLServerError(message: fallback)] : list
    }

    private static func errorList(_ value: JSONValue?) -> [GraphQLServerError] {
        switch value {
        case .array(let items)?: return items.compactMap(error)
        case .object?: return value.flatMap(error).map { [$0] } ?? []
        default: return []
        }
    }

    private static func error(_ value: JSONValue) -> GraphQLServerError? {
        guard case .object = value else { return value.string.map { GraphQLServerError(message: $0) } }
        let type = value["errorType"]?.string
        // A number or text holding one, as JSONValue reads whole numbers.
        let code = value["errorCode"]?.integer
        let message = value["message"]?.string ?? type ?? "server error"
        return GraphQLServerError(message: message, errorType: type, errorCode: code)
    }
}
