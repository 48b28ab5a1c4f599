import Foundation
import Logging

/// Everything about one transport that is not the shared driver: how to open its socket, its
/// codec, its authorizer, how its deliveries become envelopes, and its own inputs, actions and
/// metrics. With a ``ConnectionMachine`` it is the whole transport; ``TransportDriver`` does the
/// rest (sockets, forwarding, pings, the timer, the loop and its lifecycle).
///
/// The driver calls the synchronous members on its loop, so they must not block; the
/// asynchronous ones (``open(_:reason:as:)`` and ``authorize(_:on:as:)``) run in child tasks, so a
/// slow token provider or signer never holds up keep-alives, timers or other sockets.
@usableFromInline package protocol ConnectionDialect: Sendable {
    /// The transport's connection rules.
    associatedtype Machine: ConnectionMachine
    /// Transport-specific inputs (AppSync's publishes); `Never` when there are none.
    associatedtype Command: Sendable = Never
    /// What the transport keeps across inputs on the driver loop (AppSync's waiting publishes).
    associatedtype State

    /// The transport's logger (with its `switchboard.transport` metadata).
    var logger: Logger { get }

    /// Fetches credentials for `reason` and opens socket `connection` (runs in a child task).
    /// - Returns: The socket and what the machine needs of the handshake, or why it failed.
    func open(
        _ connection: ConnectionID, reason: TokenRequestReason, as identity: TransportIdentity
    ) async -> Result<OpenedSocket<Machine.Handshake>, ConnectFailure>

    /// A socket is about to be opened (for metrics and logs).
    func opening(_ opening: SocketOpening, state: inout State)

    /// Decodes one frame; logs and counts it. Nil drops the frame without telling the machine.
    /// On the hot path: called for every frame, on the thread the socket delivers it on (not
    /// the driver's loop), and for frames of a socket the driver may just have let go.
    func decode(_ message: WebSocketMessage, on connection: ConnectionID) -> Result<Machine.ServerMessage, SwitchboardError>?

    /// Encodes a message that needs no authorization, or says it needs one.
    func encode(
        _ message: Machine.ClientMessage, on connection: ConnectionID, identity: TransportIdentity?, state: inout State
    ) -> Encoding

    /// Authorizes and encodes a message ``encode(_:on:identity:state:)`` left to it (runs in a
    /// child task). The frame goes out only if the driver still holds the socket open.
    func authorize(_ message: Machine.ClientMessage, on connection: ConnectionID, as identity: TransportIdentity?) async -> Authorized<Command>

    /// Turns what a subscription received into envelopes and yields them. On the hot path.
    /// `receivedAt` is when the frame arrived (the envelopes' ``EventEnvelope/receivedAt``).
    /// `charge` is the frame's share of the socket's ``InboundBudget``: it goes with the last
    /// envelope yielded (``TransportEvents/Continuation/yield(_:charge:)``), or is released when
    /// none is.
    func deliver(
        _ delivery: Machine.Delivery, for key: SubscriptionKey, receivedAt: Date, charge: InboundCharge,
        to events: TransportEvents.Continuation)

    /// An event is about to be reported to the owner (for metrics).
    func reporting(_ event: TransportEvent, state: inout State)

    /// Handles a transport-specific input.
    func handle(
        _ command: Command, machine: inout Machine, state: inout State, at now: Duration,
        random: inout some RandomNumberGenerator
    ) -> [Machine.Action]

    /// Carries out a transport-specific action.
    func perform(_ action: Machine.Extra, state: inout State)

    /// The transport is shutting down, before the machine closes its sockets: answer whatever waits.
    func shutDown(state: inout State)
}

/// A socket that opened, and what the machine needs of its handshake.
@usableFromInline package struct OpenedSocket<Handshake: Sendable>: Sendable {
    /// The socket.
    package var connection: any WebSocketConnection
    /// What the handshake produced (the GraphQL token for `connection_init`).
    package var handshake: Handshake

    /// - Parameters:
    ///   - connection: The socket.
    ///   - handshake: What the handshake produced.
    package init(_ connection: any WebSocketConnection, handshake: Handshake) {
        self.connection = connection
        self.handshake = handshake
    }
}

/// A socket the driver is about to open, as told to ``ConnectionDialect/opening(_:state:)``.
@usableFromInline package struct SocketOpening: Sendable {
    /// The socket's id.
    package var connection: ConnectionID
    /// Why credentials are fetched.
    package var reason: TokenRequestReason
    /// Whether it replaces the current socket before its lifetime ends.
    package var isReplacement: Bool
    /// Whether a socket of this identity was connected before (so this one is a reconnect).
    package var wasConnected: Bool
}

/// What ``ConnectionDialect/encode(_:on:identity:state:)`` made of a message.
@usableFromInline package enum Encoding: Sendable {
    /// Send this text now; `kind` names the frame in the trace log.
    case frame(String, kind: String?)
    /// Authorize it in a child task (``ConnectionDialect/authorize(_:on:as:)``), then send it.
    case authorize
    /// Send nothing (it could not be encoded; the dialect logged why).
    case skip
}

/// What ``ConnectionDialect/authorize(_:on:as:)`` made of a message.
@usableFromInline package enum Authorized<Command: Sendable>: Sendable {
    /// Send this text, if the socket is still open.
    case frame(String, kind: String?)
    /// No authorization could be made: hand this input to the dialect instead (if the socket is
    /// still open).
    case refused(Command)
    /// Send nothing (it could not be encoded; the dialect logged why).
    case skip
}

extension ConnectionDialect where Command == Never {
    /// No transport-specific inputs.
    package func handle(
        _ command: Never, machine: inout Machine, state: inout State, at now: Duration,
        random: inout some RandomNumberGenerator
    ) -> [Machine.Action] {
        switch command {}
    }
}

extension ConnectionDialect where Machine.Extra == Never {
    /// No transport-specific actions.
    package func perform(_ action: Never, state: inout State) {
        switch action {}
    }
}

extension SwitchboardError {
    /// Describes an error for a log line without anything that could carry a credential.
    @usableFromInline package static func logDescription(_ error: any Error) -> String {
        if let error = error as? SwitchboardError { return "\(error.code): \(error.message)" }
        if let error = error as? WebSocketHandshakeError { return error.description }
        return String(describing: type(of: error))
    }
}
