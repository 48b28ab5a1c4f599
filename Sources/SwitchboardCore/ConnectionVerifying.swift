/// A transport that can check its connection at once, instead of waiting out the keep-alive window.
///
/// A socket can die without a close: the phone switched from Wi-Fi to cellular, or came back
/// from sleep, and the server's keep-alives simply stop arriving. A transport notices that only
/// when its keep-alive watchdog fires (on AppSync Events after `connectionTimeoutMs`, 300 s on
/// the real service). An owner that learns the network path changed calls
/// ``verifyConnection(timeout:)`` to find out now.
///
/// Both Switchboard transports conform: `AppSyncEventsSubscriber` and `GraphQLSubscriber` (in each
/// of its three dialects). Check for the capability with a cast:
///
/// ```swift
/// if let verifying = transport as? any ConnectionVerifying {
///     verifying.verifyConnection(timeout: .seconds(2))
/// }
/// ```
public protocol ConnectionVerifying: EventTransport {
    /// Checks the connection now. Like the other commands it only enqueues the check and returns
    /// at once; what it finds out is reported through ``EventTransport/events``.
    ///
    /// What happens depends on the transport's state when the check runs:
    /// - **Connected:** the transport sends a WebSocket ping
    ///   (``WebSocketConnection/sendPing(_:)``). A pong within `timeout`, measured on the
    ///   transport's injected clock, keeps the connection; nothing is reported (the transport
    ///   logs it at debug). No pong in time, or a ping that fails (the socket is closed, or the
    ///   engine cannot ping): the transport reports ``TransportEvent/error(_:)`` with
    ///   ``SwitchboardError/Code/network`` and a message naming the check (such as
    ///   "connection check: no pong within 2 s"), closes that connection and connects again at
    ///   once, without a reconnect delay and with the attempt count restarted
    ///   (``ConnectionState/connecting(attempt:)`` with attempt 1). Every held subscription is
    ///   sent again, as after any reconnect.
    /// - **Waiting to reconnect:** the rest of the reconnect delay is skipped; the transport
    ///   connects at once, keeping the attempt number it was waiting for.
    /// - **Connecting**, **idle**, **disconnected** (stopped, for example after
    ///   ``SwitchboardError/Code/sessionExpired``) or **shut down:** nothing happens.
    ///
    /// A call while a check is running starts no second ping; the running check decides.
    /// A `timeout` that is zero or negative is refused: the transport logs a
    /// ``SwitchboardError`` with ``SwitchboardError/Code/invalidConfiguration`` and does nothing.
    /// - Parameter timeout: How long to wait for the pong; a couple of seconds suits a phone
    ///   whose network just changed.
    func verifyConnection(timeout: Duration)
}

extension ConnectionVerifying {
    /// The error for a `timeout` that ``verifyConnection(timeout:)`` refuses, or nil if it is valid.
    package static func invalidCheckTimeout(_ timeout: Duration) -> SwitchboardError? {
        guard timeout <= .zero else { return nil }
        return SwitchboardError(
            code: .invalidConfiguration,
            message: "verifyConnection(timeout:) needs a positive timeout, not \(timeout.shortDescription); the check is ignored")
    }
}

/// The messages transports report when a connection check fails, shared so both say the same.
package enum ConnectionCheckFailure {
    /// No pong arrived within `timeout`.
    package static func noPong(within timeout: Duration) -> SwitchboardError {
        SwitchboardError(code: .network, message: "connection check: no pong within \(timeout.shortDescription)")
    }

    /// The ping could not be sent or the socket ended while waiting for the pong.
    package static func pingFailed(_ error: SwitchboardError) -> SwitchboardError {
        SwitchboardError(code: .network, message: "connection check: the ping failed (\(error.message))", cause: error)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A short human-readable form: "2 s", "1.5 s", "250 ms", "0 s".
    package var shortDescription: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return self == .zero ? "0 s" : "\(self)" }
        if milliseconds % 1000 == 0 { return "\(seconds) s" }
        if abs(milliseconds) < 1000 { return "\(milliseconds) ms" }
        let text = String(Double(milliseconds) / 1000)
        return "\(text) s"
    }
}
