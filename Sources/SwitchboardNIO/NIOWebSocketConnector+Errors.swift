import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwitchboardCore

extension NIOWebSocketConnector {
    /// Maps a failed TCP connect to a ``SwitchboardError``.
    static func connectError(_ error: any Error, target: WebSocketTarget, timeout: Duration) -> SwitchboardError {
        if let error = error as? SwitchboardError { return error }
        if case .connectTimeout? = error as? ChannelError {
            return .connectionTimeout(.connect, "connecting to \(target.endpoint) took longer than \(timeout.secondsDescription)", cause: error)
        }
        if let error = error as? NIOConnectionError, error.connectionErrors.contains(where: {
            if case .connectTimeout? = $0.error as? ChannelError { return true }
            return false
        }) {
            return .connectionTimeout(.connect, "connecting to \(target.endpoint) took longer than \(timeout.secondsDescription)", cause: error)
        }
        return SwitchboardError(code: .network, message: "cannot connect to \(target.endpoint)", cause: error)
    }

    /// Maps a failure between TCP connect and the upgrade answer (TLS, HTTP, a close) to the
    /// error ``NIOWebSocketConnector/open(_:)`` throws.
    static func handshakeError(_ error: any Error, target: WebSocketTarget) -> any Error {
        switch error {
        case let error as SwitchboardError:
            return error
        case let error as WebSocketHandshakeError:
            return error
        case is CancellationError:
            return error
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError:
            return SwitchboardError(code: .network, message: "the TLS handshake with \(target.endpoint) failed", cause: error)
        case is NIOHTTPClientUpgradeError, is HTTPParserError:
            return SwitchboardError(
                code: .network, message: "\(target.endpoint) sent an invalid answer to the WebSocket upgrade", cause: error)
        default:
            return SwitchboardError(
                code: .network, message: "\(target.endpoint) closed the connection during the WebSocket upgrade", cause: error)
        }
    }
}
