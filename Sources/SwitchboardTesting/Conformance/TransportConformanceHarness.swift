import SwitchboardCore

/// What a transport author supplies so that ``TransportConformance`` can run its checks: fresh
/// transports, identities, subscription targets, and a hand on the server.
///
/// The suite plays the transport's owner (as `BackendNotifier` does); the harness plays the
/// backend. A harness may talk to a real local server (the Switchboard emulator), script the
/// server over a ``ScriptedWebSocketConnector``, or drive a test double directly.
///
/// Requirements on the transport ``makeTransport()`` returns:
/// - It reconnects soon after losing a connection: configure a reconnect policy such as
///   `.fixedDelay(.zero)`, on a ``ManualClock`` if you like (the suite never advances a clock and
///   never sleeps to let time pass).
/// - It authorizes every connect with a token from the `TransportIdentity.tokens` of the
///   identity it connects as (the suite counts those fetches).
///
/// Each check makes one transport, so a harness may keep per-check state, such as the
/// connections its server accepted.
public protocol TransportConformanceHarness: Sendable {
    /// A new transport that has not run yet.
    /// - Returns: The transport under test.
    func makeTransport() async throws -> any EventTransport

    /// Who the suite connects as. The server must accept both users' tokens (unless told to
    /// reject credentials), and each user's targets under that user's connection.
    /// - Parameter user: The first or the second user.
    /// - Returns: The identity, whose token provider returns a token the server accepts.
    func identity(_ user: TransportConformance.User) -> TransportIdentity

    /// A subscription target the server accepts for `user`. The two streams must not receive each
    /// other's events.
    /// - Parameters:
    ///   - stream: Which of the two streams.
    ///   - user: Whose stream.
    /// - Returns: A channel for an AppSync Events transport, a GraphQL operation for a GraphQL
    ///   one: whatever this transport subscribes to.
    func target(_ stream: TransportConformance.Stream, for user: TransportConformance.User) -> SubscriptionRequest.Target

    /// A target the transport accepts locally but the server refuses when `user` subscribes to it
    /// (a channel or an operation the user may not use, for example).
    /// - Parameter user: Who subscribes.
    /// - Returns: The target.
    func rejectedTarget(for user: TransportConformance.User) -> SubscriptionRequest.Target

    /// Makes the server send one event on `stream` of `user`, whose payload contains `marker`
    /// somewhere in its JSON text.
    ///
    /// The suite calls it once the transport reported every subscription it expects to deliver
    /// as established. Where the protocol has no per-subscription acknowledgement, wait here until
    /// the server has taken in what the client sent before, so the event reaches a subscription
    /// the client has just sent. A subscription the server does not hold gets nothing.
    /// - Parameters:
    ///   - marker: A short text of letters, digits and `-` to put into the payload.
    ///   - stream: Which stream.
    ///   - user: Whose stream.
    func deliver(_ marker: String, on stream: TransportConformance.Stream, for user: TransportConformance.User) async throws

    /// Makes the server drop every open connection as a failure would (a going-away close or a
    /// reset), so that the transport reconnects.
    func dropConnections() async throws

    /// Makes the server refuse, from now on, the credentials of every connect (`true`), or accept
    /// them again (`false`). A refusal is what the protocol says for bad credentials: an
    /// unauthorized `connection_error`, a 4401/4403 close, or a 401/403 upgrade answer.
    /// - Parameter reject: Whether to refuse.
    func rejectCredentials(_ reject: Bool) async throws
}

extension TransportConformance {
    /// One of the two users the suite connects as.
    public enum User: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The user most checks connect as.
        case first
        /// The user that replaces the first one.
        case second

        public var description: String { "\(rawValue) user" }
    }

    /// One of the two independent streams of events a user can subscribe to.
    public enum Stream: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The stream most checks subscribe to.
        case first
        /// A stream whose events never reach a subscription of the first.
        case second

        public var description: String { "\(rawValue) stream" }
    }
}
