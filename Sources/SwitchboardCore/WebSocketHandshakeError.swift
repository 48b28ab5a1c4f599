/// The server answered the WebSocket upgrade request with something other than
/// `101 Switching Protocols`, or accepted it without choosing one of the offered
/// subprotocols.
///
/// Engines throw this from ``WebSocketConnector/connect(_:)`` so that transports can tell an
/// authorization failure (`401`, `403`) from a missing endpoint (`404`) or an overloaded
/// server (`5xx`) and react accordingly: refresh the token once, fail with
/// ``SwitchboardError/Code-swift.struct/invalidConfiguration``, or reconnect later.
public struct WebSocketHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the handshake failed.
    public enum Reason: Sendable, Hashable {
        /// The server answered with this HTTP status instead of `101`.
        case unexpectedStatus(Int)
        /// The server switched protocols but chose none of the offered subprotocols
        /// (or one that was not offered).
        case subprotocolNotNegotiated(offered: [String], chosen: String?)
    }

    /// Why the handshake failed.
    public var reason: Reason
    /// The start of the response body (at most a few KiB), decoded as UTF-8 with
    /// replacement characters. Servers usually explain a rejection here.
    public var body: String

    /// - Parameters:
    ///   - reason: Why the handshake failed. Offered `header-…` subprotocols carry credentials
    ///     (AppSync's auth header); they are kept only as `header-<redacted>`.
    ///   - body: The start of the response body.
    public init(reason: Reason, body: String = "") {
        if case .subprotocolNotNegotiated(let offered, let chosen) = reason {
            let redacted = offered.map { $0.hasPrefix("header-") ? "header-<redacted>" : $0 }
            self.reason = .subprotocolNotNegotiated(offered: redacted, chosen: chosen?.hasPrefix("header-") == true ? "header-<redacted>" : chosen)
        } else {
            self.reason = reason
        }
        self.body = body
    }

    /// The HTTP status of an ``Reason/unexpectedStatus(_:)`` answer, `nil` otherwise.
    public var status: Int? {
        if case .unexpectedStatus(let status) = reason { return status }
        return nil
    }

    /// `true` for `401` and `403`: the credentials were refused.
    public var isAuthorizationFailure: Bool { status == 401 || status == 403 }

    public var description: String {
        switch reason {
        case .unexpectedStatus(let status):
            let snippet = body.isEmpty ? "" : ": \(body.prefix(200))"
            return "WebSocket upgrade refused with HTTP \(status)\(snippet)"
        case .subprotocolNotNegotiated(let offered, let chosen):
            return "server chose subprotocol \(chosen.map { "'\($0)'" } ?? "none") but the client offered \(offered.count) (\(offered.filter { !$0.hasPrefix("header-") }.joined(separator: ", ")))"
        }
    }
}

extension WebSocketHandshakeError {
    /// The subprotocol a server chose, checked against the offer: every engine applies the same
    /// rule to what its upgrade answer carried.
    /// - Parameters:
    ///   - offered: The subprotocols the client offered.
    ///   - chosen: The subprotocols the answer named (normally one; none when it named none).
    /// - Returns: The chosen subprotocol; nil when none was offered and none chosen.
    /// - Throws: ``Reason/subprotocolNotNegotiated(offered:chosen:)`` when subprotocols were
    ///   offered and the server chose none, several, or one that was not offered, or chose one
    ///   when none was offered.
    package static func negotiatedSubprotocol(offered: [String], chosen: [String]) throws(WebSocketHandshakeError) -> String? {
        switch chosen.count {
        case 0 where offered.isEmpty:
            return nil
        case 1 where offered.contains(chosen[0]):
            return chosen[0]
        default:
            throw WebSocketHandshakeError(
                reason: .subprotocolNotNegotiated(offered: offered, chosen: chosen.isEmpty ? nil : chosen.joined(separator: ", ")))
        }
    }
}
