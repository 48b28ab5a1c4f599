import Foundation
import SwitchboardCore

/// The whole lifecycle of a ``GraphQLSubscriber`` as a plain value.
///
/// Inputs are facts (a command from the owner, a socket opened, a frame decoded, a timer fired at
/// `now`); outputs are the shared driver's actions (``/SwitchboardCore/DriverAction``). Time is a
/// `Duration` since the transport started, passed in; the driver wakes it at ``nextDeadline``;
/// random draws come in through the `random` argument; wire ids come from a counter, so they are
/// never reused and are fresh after every reconnect. It holds one socket at a time; what an
/// abandoned one still delivers never reaches it (the driver drops it).
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

    /// The shared vocabulary: `.deliver` carries a result's `data` object.
    typealias Action = DriverAction<GraphQLClientMessage, GraphQLResult, Never>

    enum Phase: Equatable {
        case idle
        case opening(connection: ConnectionID, attempt: Int)
        case awaitingAck(connection: ConnectionID, attempt: Int, deadline: Duration)
        case connected(connection: ConnectionID, Liveness)
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

        /// The earliest of the deadlines. Read after every frame, so it allocates nothing.
        var nextDeadline: Duration? {
            func earlier(_ a: Duration?, _ b: Duration?) -> Duration? {
                guard let a else { return b }
                guard let b else { return a }
                return min(a, b)
            }
            return earlier(earlier(keepAliveDeadline, nextPing), earlier(pongDeadline, check?.deadline))
        }
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
    /// The last socket handed out.
    var lastConnection: ConnectionID = 0
    var nextID = 0
    var signedIn = false
    /// Whether the current connect cycle already refreshed the token after a rejection.
    var refreshedAfterRejection = false

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

    /// The socket of the current connection, if there is one.
    var currentConnection: ConnectionID? {
        switch phase {
        case .opening(let connection, _), .awaitingAck(let connection, _, _), .connected(let connection, _): connection
        default: nil
        }
    }

    /// When the driver must call ``timerFired(at:random:)`` next: the ack deadline, the end of
    /// the reconnect delay, or the earliest liveness deadline.
    var nextDeadline: Duration? {
        switch phase {
        case .awaitingAck(_, _, let deadline), .waitingToReconnect(_, let deadline): deadline
        case .connected(_, let liveness): liveness.nextDeadline
        case .idle, .opening, .disconnected, .shutDown: nil
        }
    }
}
