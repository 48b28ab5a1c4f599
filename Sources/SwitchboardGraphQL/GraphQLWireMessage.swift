import Foundation
import SwitchboardCore

/// A GraphQL error as a server reports it, reduced to what the transport needs.
package struct GraphQLServerError: Sendable, Hashable, CustomStringConvertible {
    package var message: String
    /// AppSync's `errorType`, such as `UnauthorizedException` or `LimitExceededError`.
    package var errorType: String?
    /// AppSync's numeric `errorCode`, such as 401.
    package var errorCode: Int?

    package init(message: String, errorType: String? = nil, errorCode: Int? = nil) {
        self.message = message
        self.errorType = errorType
        self.errorCode = errorCode
    }

    /// The error says the credentials were refused.
    var isAuthorization: Bool {
        errorCode == 401 || errorCode == 403 || (errorType?.hasPrefix("Unauthorized") ?? false)
    }

    package var description: String {
        let type = errorType.map { "\($0): " } ?? ""
        return "\(type)\(message)"
    }
}

/// A frame the client sends, independent of the dialect.
enum GraphQLClientMessage: Sendable, Hashable {
    /// `connection_init`; `token` goes into the payload where the dialect puts it there.
    case connectionInit(token: String?)
    /// `start` / `subscribe`; `authorization` is AppSync's per-start auth object.
    case subscribe(id: String, operation: GraphQLOperation, authorization: [String: String]?)
    /// `stop` / `complete`.
    case unsubscribe(id: String)
    /// `ping` (graphql-transport-ws).
    case ping
    /// `pong` (graphql-transport-ws), echoing the ping's payload.
    case pong(payload: String?)
    /// `connection_terminate` (legacy graphql-ws).
    case terminate
}

/// A frame the server sent, normalised over the three dialects (protocol doc §4.5 point 2).
package enum GraphQLServerMessage: Sendable, Hashable {
    /// `connection_ack`, with AppSync's `connectionTimeoutMs` if present.
    case connectionAck(keepAliveWindow: Duration?)
    /// `connection_error`.
    case connectionError([GraphQLServerError])
    /// `ka`.
    case keepAlive
    /// `ping`, with its payload as JSON text.
    case ping(payload: String?)
    /// `pong`.
    case pong
    /// AppSync's `start_ack`.
    case subscriptionAck(id: String)
    /// `data` / `next`: the result's `data` value (nil when null or absent), and its errors.
    case next(id: String, data: ResultData?, errors: [GraphQLServerError])
    /// `error`, with or without an id.
    case error(id: String?, errors: [GraphQLServerError])
    /// `complete`.
    case complete(id: String)
}

/// A result's `data` value: the JSON bytes it arrived as, or the frame's parse of it (the frame's
/// ``JSONDocument`` and the node of `data` in it), so that the result is mapped without parsing
/// its bytes again, and its bytes are copied out only if someone reads them (most results never
/// need them).
///
/// Two are equal when their bytes are, however each was made.
package struct ResultData: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable {
        case bytes(Data)
        case parsed(JSONDocument, JSONDocument.Index)
    }

    private let storage: Storage

    /// The value as JSON bytes.
    package init(_ bytes: Data) { storage = .bytes(bytes) }

    /// The node `data` of the parsed `frame`.
    package init(frame: JSONDocument, data: JSONDocument.Index) { storage = .parsed(frame, data) }

    /// The value as JSON bytes: as it arrived (copied out of the frame when made from its parse).
    package var bytes: Data {
        switch storage {
        case .bytes(let data): data
        case .parsed(let frame, let index): frame.rawData(index)
        }
    }

    /// The frame's parse and the value's node in it, when made from one.
    package var parse: (frame: JSONDocument, data: JSONDocument.Index)? {
        guard case .parsed(let frame, let index) = storage else { return nil }
        return (frame, index)
    }

    /// The JSON text.
    package var description: String { String(decoding: bytes, as: UTF8.self) }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.bytes == rhs.bytes }
    package func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

/// Why a frame could not be decoded.
package struct GraphQLCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String
    package var description: String { message }

    var switchboardError: SwitchboardError {
        SwitchboardError(code: .protocolViolation, message: message, cause: self)
    }
}
