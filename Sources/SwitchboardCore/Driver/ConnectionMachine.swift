/// A transport's connection rules as a plain value, driven by ``TransportDriver``.
///
/// Inputs are facts: a command of the owner, a socket that opened or failed to, a decoded frame,
/// a socket's end, the time. Outputs are ``DriverAction``s. The machine never reads a clock (the
/// driver passes the time since it started), never draws random numbers itself (they come in
/// through `random`) and never does I/O, so it is tested without sockets.
///
/// Every socket is one-shot and named by a ``ConnectionID`` the machine hands out. The driver
/// passes on only what comes from a socket it still holds: once the machine closed a socket
/// (``DriverAction/close(_:code:reason:)``) or was told it ended, nothing of it arrives again.
/// A machine that keeps several sockets (AppSync's make-before-break replacement) uses the id to
/// tell which of its sockets spoke, never to recognise a stale one.
@usableFromInline package protocol ConnectionMachine {
    /// A decoded server frame (decoded on the thread the socket delivers it on, then queued).
    associatedtype ServerMessage: Sendable
    /// A client frame, before encoding (and authorization).
    associatedtype ClientMessage: Sendable
    /// What ``DriverAction/deliver(_:_:)`` carries for one subscription.
    associatedtype Delivery: Sendable
    /// Transport-specific actions; `Never` when there are none.
    associatedtype Extra: Sendable = Never
    /// What opening a socket yields besides the socket (the GraphQL token for `connection_init`).
    associatedtype Handshake: Sendable = Void

    /// The actions this machine returns.
    typealias Action = DriverAction<ClientMessage, Delivery, Extra>

    /// When the driver must call ``timerFired(at:random:)`` next, if at all. Read after every
    /// input, so it must not allocate. A deadline may move later without harm: the driver then
    /// wakes early once and reads it again.
    var nextDeadline: Duration? { get }

    /// The owner called `connect(as:)`.
    mutating func connect() -> [Action]
    /// The owner called `disconnect()`.
    mutating func disconnect() -> [Action]
    /// The owner called `shutDown()`; ends with ``DriverAction/finish``.
    mutating func shutDown() -> [Action]
    /// The owner added a subscription (already validated by the transport).
    mutating func subscribe(_ request: SubscriptionRequest) -> [Action]
    /// The owner removed a subscription.
    mutating func unsubscribe(_ key: SubscriptionKey) -> [Action]
    /// The owner asked for a connection check (``ConnectionVerifying``).
    mutating func verifyConnection(timeout: Duration, at now: Duration) -> [Action]

    /// Socket `connection` opened.
    mutating func opened(_ connection: ConnectionID, handshake: Handshake, at now: Duration) -> [Action]
    /// Opening socket `connection` failed.
    mutating func openFailed(
        _ connection: ConnectionID, _ failure: ConnectFailure, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action]
    /// A frame of socket `connection` decoded to `message`; `now` is when the socket delivered it.
    mutating func received(
        _ message: ServerMessage, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action]
    /// ``received(_:on:at:random:)``, appending the actions to `actions`: the driver's buffer,
    /// reused from frame to frame, so a frame that only delivers allocates no array of its own.
    mutating func received(
        _ message: ServerMessage, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator,
        into actions: inout [Action])
    /// A frame of socket `connection` could not be decoded.
    mutating func receivedGarbage(_ error: SwitchboardError, on connection: ConnectionID, at now: Duration) -> [Action]
    /// Socket `connection` ended: with the server's close frame, or without one (`error` says why,
    /// if anything does).
    mutating func closed(
        _ connection: ConnectionID, close: WebSocketClose?, error: (any Error)?, at now: Duration,
        random: inout some RandomNumberGenerator
    ) -> [Action]
    /// The timer reached (or passed) a deadline; it may also wake early.
    mutating func timerFired(at now: Duration, random: inout some RandomNumberGenerator) -> [Action]
    /// The client itself held back reading socket `connection` (its inbound budget was full) at
    /// some time up to `now`: the server's frames may be waiting unread, so deadlines that wait for
    /// them (a keep-alive, a pong) count from `now` at the earliest. Called before
    /// ``timerFired(at:random:)``.
    mutating func readsHeldBack(on connection: ConnectionID, at now: Duration)
    /// The pong of a connection check's ping on `connection` arrived at `now`.
    mutating func pongReceived(on connection: ConnectionID, at now: Duration) -> [Action]
    /// A connection check's ping on `connection` failed.
    mutating func pingFailed(on connection: ConnectionID, _ error: SwitchboardError, at now: Duration) -> [Action]
}

extension ConnectionMachine {
    /// Appends what ``received(_:on:at:random:)`` returns.
    package mutating func received(
        _ message: ServerMessage, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator,
        into actions: inout [Action]
    ) {
        actions += received(message, on: connection, at: now, random: &random)
    }
}
