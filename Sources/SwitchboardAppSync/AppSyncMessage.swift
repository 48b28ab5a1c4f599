import Foundation
import SwitchboardCore

/// One error of an AppSync Events error frame.
public struct AppSyncError: Sendable, Hashable, CustomStringConvertible {
    /// The error type, for example `UnauthorizedException`; numbers arrive as text.
    public var errorType: String
    /// The service's explanation, when it gives one.
    public var message: String?

    public init(errorType: String, message: String? = nil) {
        self.errorType = errorType
        self.message = message
    }

    /// Whether the error says the credentials were refused.
    public var isAuthorizationFailure: Bool {
        errorType.localizedCaseInsensitiveContains("unauthorized") || errorType.localizedCaseInsensitiveContains("forbidden")
            || errorType == "401" || errorType == "403"
    }

    public var description: String { message.map { "\(errorType): \($0)" } ?? errorType }
}

/// A frame from the AppSync Events server.
package enum AppSyncServerMessage: Sendable, Equatable {
    case connectionAck(connectionTimeoutMs: Int?)
    case connectionError([AppSyncError])
    case keepAlive
    case subscribeSuccess(id: String)
    case subscribeError(id: String?, [AppSyncError])
    case data(id: String, events: AppSyncEvents)
    case broadcastError(id: String?, [AppSyncError])
    case unsubscribeSuccess(id: String)
    case unsubscribeError(id: String?, [AppSyncError])
    case publishSuccess(id: String, AppSyncPublishResult)
    case publishError(id: String?, [AppSyncError])
    case error(id: String?, [AppSyncError])
}

/// A frame the client sends.
enum AppSyncClientMessage: Sendable, Equatable {
    case connectionInit
    case subscribe(id: String, channel: String, authorization: [String: String])
    case unsubscribe(id: String)
    /// `events` are JSON texts, sent as strings.
    case publish(id: String, channel: String, events: [String], authorization: [String: String])
}

/// The pure codec of the AppSync Events real-time protocol.
package enum AppSyncCodec {
    /// Encodes a client frame as compact JSON with unescaped slashes.
    static func encode(_ message: AppSyncClientMessage) -> String {
        let object: [String: JSONValue] =
            switch message {
            case .connectionInit: ["type": .string("connection_init")]
            case .subscribe(let id, let channel, let authorization):
                ["type": .string("subscribe"), "id": .string(id), "channel": .string(channel),
                 "authorization": .object(authorization.mapValues(JSONValue.string))]
            case .unsubscribe(let id): ["type": .string("unsubscribe"), "id": .string(id)]
            case .publish(let id, let channel, let events, let authorization):
                ["type": .string("publish"), "id": .string(id), "channel": .string(channel),
                 "events": .array(events.map(JSONValue.string)), "authorization": .object(authorization.mapValues(JSONValue.string))]
            }
        return compactJSON(.object(object))
    }

    /// Compact JSON with sorted keys and unescaped slashes. (Strings, numbers, arrays and
    /// objects always encode; `{}` stands in should the encoder ever refuse.)
    package static func compactJSON(_ value: JSONValue) -> String {
        (try? value.text()) ?? "{}"
    }

    /// Decodes a server frame.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/protocolViolation`` for a frame
    ///   that is not a JSON object with a known `type`, or misses a field its type needs.
    package static func decode(_ text: String) throws -> AppSyncServerMessage {
        if let message = decodeData(text) { return message }
        guard let frame = try? JSONValue.parse(text), case .object(let object) = frame else {
            throw violation("a frame that is not a JSON object", text)
        }
        guard let type = object["type"]?.string else { throw violation("a frame without a type", text) }
        let id = object["id"]?.string
        let errors = parseErrors(object["errors"])
        func requireID() throws -> String {
            guard let id else { throw violation("a \(type) frame without an id", text) }
            return id
        }
        switch type {
        case "connection_ack":
            let timeout = object["connectionTimeoutMs"]?.integer ?? object["payload"]?["connectionTimeoutMs"]?.integer
            // Zero or less would time the connection out at once; the default applies instead.
            return .connectionAck(connectionTimeoutMs: timeout.flatMap { $0 > 0 ? $0 : nil })
        case "connection_error": return .connectionError(errors)
        case "ka": return .keepAlive
        case "subscribe_success": return .subscribeSuccess(id: try requireID())
        case "subscribe_error": return .subscribeError(id: id, errors)
        case "data":
            let id = try requireID()
            switch object["event"] {
            case .string(let single)?: return .data(id: id, events: AppSyncEvents(AppSyncEvent(single)))
            case .array(let many)?:
                return .data(id: id, events: AppSyncEvents(many.map { AppSyncEvent($0.string ?? compactJSON($0)) }))
            case .object(let event)?:
                return .data(id: id, events: AppSyncEvents(AppSyncEvent(compactJSON(.object(event)))))
            default: throw violation("a data frame without an event", text)
            }
        case "broadcast_error": return .broadcastError(id: id, errors)
        case "unsubscribe_success": return .unsubscribeSuccess(id: try requireID())
        case "unsubscribe_error": return .unsubscribeError(id: id, errors)
        case "publish_success": return .publishSuccess(id: try requireID(), publishResult(object))
        case "publish_error": return .publishError(id: id, errors)
        case "error": return .error(id: id, errors)
        default: throw violation("an unknown message type '\(type)'", text)
        }
    }

    /// A `data` frame whose event is a JSON string or an array of them, read in one pass without
    /// `JSONSerialization`: every event arrives this way. Each event's text is unescaped once,
    /// straight into the bytes its ``AppSyncEvent`` parses and keeps. Nil leaves the frame to the
    /// general path, which reads it the same way (``JSONDocument`` answers only for what it would
    /// accept).
    private static func decodeData(_ text: String) -> AppSyncServerMessage? {
        guard var document = JSONDocument(text),
              let type = document.member("type", of: document.root), document.string(type) == "data",
              let id = document.member("id", of: document.root).flatMap(document.string),
              let event = document.member("event", of: document.root)
        else { return nil }
        switch document.kind(event) {
        case .string:
            // The one event takes the frame's storage: unescaped and parsed where the frame was.
            return document.takeString(event).map { .data(id: id, events: AppSyncEvents(AppSyncEvent(text: $0.text, document: $0.document))) }
        case .array:
            var events: [AppSyncEvent] = []
            for element in document.elements(of: event) ?? [] {
                guard let bytes = document.stringBytes(element) else { return nil }
                events.append(AppSyncEvent(utf8: bytes))
            }
            return .data(id: id, events: AppSyncEvents(events))
        default:
            return nil
        }
    }

    /// The `successful` and `failed` lists of a publish answer (HTTP body or `publish_success`);
    /// `code` may be text or a number.
    static func publishResult(_ object: [String: JSONValue]) -> AppSyncPublishResult {
        let accepted = (object["successful"]?.array ?? []).map {
            AppSyncPublishResult.Accepted(identifier: $0["identifier"]?.string ?? "", index: $0["index"]?.integer ?? 0)
        }
        let refused = (object["failed"]?.array ?? []).map {
            AppSyncPublishResult.Refused(
                identifier: $0["identifier"]?.string, index: $0["index"]?.integer ?? 0,
                code: ($0["code"] ?? $0["errorType"]).map(scalarText) ?? "", message: $0["message"]?.string ?? "")
        }
        return AppSyncPublishResult(accepted: accepted, refused: refused)
    }

    private static func parseErrors(_ value: JSONValue?) -> [AppSyncError] {
        (value?.array ?? []).compactMap { error in
            guard case .object = error else { return nil }
            let type = (error["errorType"] ?? error["code"]).map(scalarText) ?? "UnknownError"
            return AppSyncError(errorType: type, message: error["message"]?.string)
        }
    }

    /// A code as text, whether the server sent it as text or as a number.
    private static func scalarText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): "\(number)"
        case .number(let number): number.rounded() == number && number.magnitude < 1e15 ? "\(Int64(number))" : "\(number)"
        case .bool(let flag): "\(flag)"
        case .null: "null"
        case .array, .object: compactJSON(value)
        }
    }

    private static func violation(_ what: String, _ text: String) -> SwitchboardError {
        SwitchboardError(code: .protocolViolation, message: "the AppSync server sent \(what) (\(text.utf8.count) bytes)")
    }
}
