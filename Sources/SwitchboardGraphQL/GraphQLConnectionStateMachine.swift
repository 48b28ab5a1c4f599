import Foundation
import SwitchboardCore

/// The whole lifecycle of a ``GraphQLTransport`` as a plain value.
///
/// Inputs are facts (a command from the owner, a socket opened, a frame decoded, a timer fired at
/// `now`); outputs are ``Action``s the driver performs. Time is a `Duration` since the transport
/// started, passed in; random draws come in through the `random` argument; wire ids come from a
/// counter, so they are never reused and are fresh after every reconnect.
struct GraphQLConnectionStateMachine {
    struct Settings: Sendable {
        var dialect: GraphQLProtocol
        var policy: ReconnectPolicy
        var ackTimeout: Duration
        var keepAliveTimeout: Duration
        var pingInterval: Duration?
        var pongTimeout: Duration
        /// Prepended to the counter to form wire ids (AppSync wants UUID-shaped ids).
        var idPrefix: String
    }

    enum Action: Equatable, Sendable {
        /// Fetch a token for `reason`, open connection `generation`, report the outcome.
        case open(generation: Int, tokenReason: TokenRequestReason)
        /// Send a frame on connection `generation`.
        case send(generation: Int, GraphQLClientMessage)
        /// Close connection `generation`.
        case close(generation: Int, code: WebSocketCloseCode, reason: String)
        /// Wake the machine with ``timerFired(now:random:)`` at this time.
        case scheduleTimer(at: Duration)
        /// Report an event to the owner.
        case report(TransportEvent)
        /// Deliver a result's `data` object for a subscription.
        case deliver(SubscriptionKey, Data)
        /// The transport is shut down: finish the events and return from `run()`.
        case finish
        /// Send a WebSocket ping on `generation` for a connection check; report the pong with
        /// `pongReceived(generation:now:)` or the failure with `pingFailed(generation:_:now:)`.
        case pingSocket(generation: Int)
        /// The connection check on `generation` passed (for logs).
        case checkPassed(generation: Int)
    }

    enum Phase: Equatable {
        case idle
        case opening(generation: Int, attempt: Int)
        case awaitingAck(generation: Int, attempt: Int, deadline: Duration)
        case connected(generation: Int, Liveness)
        case waitingToReconnect(attempt: Int, until: Duration)
        case disconnected
        case shutDown
    }

    struct Liveness: Equatable {
        /// No `ka` (or any frame) before this → the connection is dead.
        var keepAliveDeadline: Duration?
        var keepAliveWindow: Duration?
        /// When the next client `ping` is due.
        var nextPing: Duration?
        /// No `pong` before this → the connection is dead.
        var pongDeadline: Duration?
        /// A connection check waiting for its WebSocket pong (see `+Check`).
        var check: ConnectionCheck?
    }

    /// A connection check's deadline, and the timeout it came from (for the error).
    struct ConnectionCheck: Equatable {
        var deadline: Duration
        var timeout: Duration
    }

    enum WireState: Equatable {
        /// Not on the wire on this connection.
        case pending
        /// Sent; waiting for `start_ack` (AppSync).
        case sent(id: String)
        /// Established under this id.
        case established(id: String)
    }

    struct Held: Equatable {
        var request: SubscriptionRequest
        var wire: WireState = .pending
    }

    let settings: Settings
    var phase: Phase = .idle
    var held: [SubscriptionKey: Held] = [:]
    /// Wire ids the server knows on the current connection, and what they belong to.
    var active: [String: ActiveID] = [:]
    var generation = 0
    var nextID = 0
    var signedIn = false
    /// Whether the current connect cycle already refreshed the token after a rejection.
    var refreshedAfterRejection = false
    var armedTimer: Duration?

    enum ActiveID: Equatable {
        /// Serving a held subscription.
        case serving(SubscriptionKey)
        /// Unsubscribed before the `start_ack`: stop it once acknowledged.
        case cancelled
    }

    init(settings: Settings) { self.settings = settings }

    var capabilities: GraphQLProtocol.Capabilities { settings.dialect.capabilities }

    mutating func makeID() -> String {
        nextID += 1
        if settings.dialect == .appSyncGraphQL {
            let hex = String(nextID, radix: 16)
            return settings.idPrefix + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        }
        return settings.idPrefix + String(nextID)
    }

    var currentGeneration: Int? {
        switch phase {
        case .opening(let generation, _), .awaitingAck(let generation, _, _), .connected(let generation, _): generation
        default: nil
        }
    }
}
