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
    /// `data` / `next`: the result's `data` object as JSON bytes (nil when null or absent), and its
    /// errors; `parsed` is the frame's parse of `data` when the codec read it in one pass.
    case next(id: String, data: Data?, errors: [GraphQLServerError], parsed: ParsedData = ParsedData())
    /// `error`, with or without an id.
    case error(id: String?, errors: [GraphQLServerError])
    /// `complete`.
    case complete(id: String)
}

/// A result's `data` as the frame's parse left it: the frame's ``JSONDocument`` and the node of
/// `data` in it, so the result is mapped without parsing its bytes again.
///
/// A parse of the `data` bytes beside it, not a value of its own: it is equal to every other,
/// made or not (the bytes decide equality), and hashes to nothing.
package struct ParsedData: Sendable, Hashable {
    /// The whole frame, parsed; nil when the codec made no such parse.
    package private(set) var frame: JSONDocument?
    /// The `data` value in ``frame``.
    package private(set) var data: JSONDocument.Index?

    /// No parse: the result's bytes are parsed where it is mapped.
    package init() {}

    /// The node `data` of the parsed `frame`.
    package init(frame: JSONDocument, data: JSONDocument.Index) {
        self.frame = frame
        self.data = data
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}
}

/// Why a frame could not be decoded.
package struct GraphQLCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String
    package var description: String { message }

    var switchboardError: SwitchboardError {
        SwitchboardError(code: .protocolViolation, message: message, cause: self)
    }
}
