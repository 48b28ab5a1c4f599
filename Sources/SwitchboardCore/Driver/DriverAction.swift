/// What a ``ConnectionMachine`` asks its ``TransportDriver`` to do: the one action vocabulary
/// of both transports.
///
/// The machine decides; the driver carries out the actions in order, on one loop. Timers are not
/// actions: after every input the driver reads ``ConnectionMachine/nextDeadline`` and keeps one
/// timer child sleeping towards it.
@usableFromInline package enum DriverAction<Outbound: Sendable, Delivery: Sendable, Extra: Sendable>: Sendable {
    /// Open socket `id` (in a child task): fetch credentials for `reason`, connect, and report
    /// ``ConnectionMachine/opened(_:handshake:at:)`` or
    /// ``ConnectionMachine/openFailed(_:_:at:random:)``.
    case open(ConnectionID, reason: TokenRequestReason)
    /// Open socket `id` beside the current one, to replace it before its lifetime ends (counted
    /// and logged as a replacement, not a reconnect); otherwise as ``open(_:reason:)``.
    case openReplacement(ConnectionID, reason: TokenRequestReason)
    /// Encode and send a message on socket `id`; messages that carry an authorization are
    /// authorized in a child task first. Dropped if the driver no longer holds an open `id`.
    case send(ConnectionID, Outbound)
    /// Close socket `id` and forget it: nothing it still delivers reaches the machine. A socket
    /// still being opened is closed as soon as it opens.
    case close(ConnectionID, code: WebSocketCloseCode, reason: String)
    /// Close socket `id` but keep reading it until the server's close: its frames and its end
    /// still reach the machine, nothing more is sent on it.
    case retire(ConnectionID, code: WebSocketCloseCode)
    /// Send a WebSocket ping on socket `id` for a connection check, then report
    /// ``ConnectionMachine/pongReceived(on:at:)`` or ``ConnectionMachine/pingFailed(on:_:at:)``.
    case ping(ConnectionID)
    /// The connection check on socket `id` passed (logged).
    case checkPassed(ConnectionID)
    /// Report an event to the transport's owner.
    case report(TransportEvent)
    /// Deliver what a subscription received; the transport turns it into envelopes.
    case deliver(SubscriptionKey, Delivery)
    /// The transport is shut down: finish its events and return from `run()`.
    case finish
    /// A transport-specific action (AppSync's publish answers); see
    /// ``ConnectionDialect/perform(_:state:)``.
    case transport(Extra)
}

extension DriverAction: Equatable where Outbound: Equatable, Delivery: Equatable, Extra: Equatable {}

/// Why opening a socket failed, as the transport classified it for its machine.
@usableFromInline package struct ConnectFailure: Error, Sendable, Equatable {
    /// What went wrong, without credentials.
    @usableFromInline package var error: SwitchboardError
    /// Whether the server refused the credentials (or none could be had): the machine refreshes
    /// the token once, then reports ``SwitchboardError/Code/sessionExpired``.
    package var isAuthorization: Bool

    /// Makes a failure.
    /// - Parameters:
    ///   - error: What went wrong.
    ///   - isAuthorization: Whether the credentials were refused.
    package init(_ error: SwitchboardError, isAuthorization: Bool) {
        self.error = error
        self.isAuthorization = isAuthorization
    }
}
