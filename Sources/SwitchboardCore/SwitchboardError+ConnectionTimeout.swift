/// The connection-level deadlines. When one passes the connection is given up and made again,
/// so consumers see it as a ``SwitchboardError/Code/network`` error naming the deadline, not as
/// ``SwitchboardError/Code/timeout`` (which is kept for request-level waits).
package enum ConnectionTimeout: String, Sendable {
    /// Opening the socket or the WebSocket upgrade.
    case connect = "connect"
    /// The server's acknowledgement of the connection (`connection_ack`).
    case connectionAck = "connection-ack"
    /// The server's keep-alive (a frame, a `ka` or a pong).
    case keepAlive = "keep-alive"
}

extension SwitchboardError {
    /// The error for a passed connection-level deadline: code ``Code/network``, the message
    /// starting with the deadline's kind, such as `keep-alive timeout: no frame within 300 s`.
    package static func connectionTimeout(
        _ kind: ConnectionTimeout, _ detail: String, cause: (any Error & Sendable)? = nil
    ) -> SwitchboardError {
        SwitchboardError(code: .network, message: "\(kind.rawValue) timeout: \(detail)", cause: cause)
    }
}

extension Duration {
    /// The duration in seconds for messages: `300 s`, `0.5 s`, `1.25 s`.
    package var secondsDescription: String {
        let (seconds, attoseconds) = components
        guard attoseconds != 0 else { return "\(seconds) s" }
        let milliseconds = (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded()
        let value = milliseconds / 1000
        var text = String(value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return "\(text) s"
    }
}

extension SwitchboardError {
    /// What a transport reports for a failed ``WebSocketConnector/connect(_:)``: the error as
    /// thrown, except that a connector's ``Code/timeout`` (the contract of older connectors) is
    /// a connect timeout, reported as ``Code/network``.
    package static func connectFailure(_ error: any Error) -> any Error {
        guard let error = error as? SwitchboardError else { return error }
        return connectFailure(error)
    }

    /// See ``connectFailure(_:)-(any Error)``.
    package static func connectFailure(_ error: SwitchboardError) -> SwitchboardError {
        guard error.code == .timeout else { return error }
        return connectionTimeout(.connect, error.message, cause: error)
    }
}
