import Foundation
import Logging
import CoreMetrics
import SwitchboardCore

/// The legacy GraphQL-over-WebSocket ``/SwitchboardCore/EventTransport``: `graphql-ws`, `graphql-transport-ws`
/// or AWS AppSync GraphQL real-time, chosen by ``Configuration/wireProtocol``.
///
/// ```swift
/// let transport = GraphQLTransport(
///     configuration: .init(url: URL(string: "wss://api.example.com/graphql")!),
///     connector: nioConnector)
/// let notifier = BackendNotifier(transport: transport, session: session)
/// ```
///
/// Commands only enqueue work; ``run()`` performs it in one driver loop. A subscription is
/// reported established on AppSync's `start_ack`; the other two dialects have no per-subscription
/// acknowledgement, so there it is established when its `start`/`subscribe` is sent on an
/// acknowledged connection. Results arrive as ``/SwitchboardCore/EventEnvelope``s whose payload is the result's
/// `data` object.
public final class GraphQLTransport: EventTransport {
    public let kind = TransportKind.graphql
    public let events: TransportEvents

    /// True for the AppSync GraphQL dialect (`start_ack`); false for `graphql-ws` and
    /// `graphql-transport-ws`, which have no per-subscription acknowledgement.
    public var acknowledgesSubscriptions: Bool { configuration.wireProtocol.capabilities.acknowledgesStart }

    let configuration: Configuration
    let connector: any WebSocketConnector
    let continuation: TransportEvents.Continuation
    let inputs: HandOff<Input>
    let inputContinuation: HandOff<Input>.Continuation
    let state = LockedValue(Lifecycle())
    let metrics: GraphQLTransportMetrics
    let logger: Logger

    struct Lifecycle {
        var running = false
        var shutDown = false
    }

    enum Input: Sendable {
        case connect(TransportIdentity)
        case disconnect
        case subscribe(SubscriptionRequest)
        case unsubscribe(SubscriptionKey)
        case shutDown
        case opened(generation: Int, connection: any WebSocketConnection, token: String)
        case openFailed(generation: Int, error: any Error)
        case inbound(generation: Int, WebSocketInboundEvent, receivedAt: Duration)
        case inboundEnded(generation: Int, error: (any Error)?)
        case timer
        /// The owner asked for a connection check.
        case verifyConnection(timeout: Duration)
        /// The pong of a check's ping on `generation`, with the time it arrived.
        case ponged(generation: Int, roundTrip: Duration, receivedAt: Duration)
        /// A check's ping on `generation` failed.
        case pingFailed(generation: Int, SwitchboardError)
    }

    /// Creates a transport.
    /// - Parameters:
    ///   - configuration: Endpoint, dialect, timeouts, clock, logging and metrics.
    ///   - connector: The socket engine (SwitchboardNIO's, or a scripted one in tests).
    public init(configuration: Configuration, connector: any WebSocketConnector) {
        self.configuration = configuration
        self.connector = connector
        (events, continuation) = TransportEvents.makeStream()
        (inputs, inputContinuation) = HandOff<Input>.makeStream()
        metrics = GraphQLTransportMetrics(
            factory: configuration.metricsFactory ?? MetricsSystem.factory, dialect: configuration.wireProtocol)
        var logger = configuration.logger
        logger[metadataKey: "switchboard.transport"] = "graphql"
        logger[metadataKey: "switchboard.graphql.protocol"] = "\(configuration.wireProtocol)"
        self.logger = logger
    }

    public func run() async throws {
        enum Start { case run, running, shutDown }
        let start = state.withLock { state -> Start in
            if state.running { return .running }
            if state.shutDown { return .shutDown }
            state.running = true
            return .run
        }
        switch start {
        case .running: throw SwitchboardError(code: .shutDown, message: "GraphQLTransport.run() is already running")
        case .shutDown: return
        case .run: break
        }
        defer { state.withLock { $0.running = false } }
        await drive()
    }

    public func connect(as identity: TransportIdentity) { inputContinuation.yield(.connect(identity)) }

    public func disconnect() { inputContinuation.yield(.disconnect) }

    public func subscribe(_ request: SubscriptionRequest) throws {
        if state.withLock(\.shutDown) { throw SwitchboardError(code: .shutDown, message: "the GraphQL transport is shut down") }
        guard case .graphQL = request.target else {
            throw SwitchboardError(
                code: .invalidConfiguration, message: "a graphql transport cannot subscribe to \(request.target)")
        }
        inputContinuation.yield(.subscribe(request))
    }

    public func unsubscribe(_ key: SubscriptionKey) { inputContinuation.yield(.unsubscribe(key)) }

    public func shutDown() {
        let first = state.withLock { state -> (first: Bool, running: Bool) in
            defer { state.shutDown = true }
            return (!state.shutDown, state.running)
        }
        guard first.first else { return }
        if first.running {
            inputContinuation.yield(.shutDown)
        } else {
            // Not running (yet): nothing to close; finish at once.
            continuation.yield(.connectionStateChanged(.shutDown))
            continuation.finish()
            inputContinuation.finish()
        }
    }
}
