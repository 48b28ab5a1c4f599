import Foundation
import Logging
import CoreMetrics
import SwitchboardCore

/// The legacy GraphQL-over-WebSocket ``/SwitchboardCore/EventTransport``: `graphql-ws`, `graphql-transport-ws`
/// or AWS AppSync GraphQL real-time, chosen by ``Configuration/wireProtocol``.
///
/// ```swift
/// let transport = GraphQLSubscriber(
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
public final class GraphQLSubscriber: EventTransport {
    public let kind = TransportKind.graphql
    public let events: TransportEvents

    /// True for the AppSync GraphQL dialect (`start_ack`); false for `graphql-ws` and
    /// `graphql-transport-ws`, which have no per-subscription acknowledgement.
    public var acknowledgesSubscriptions: Bool { configuration.wireProtocol.capabilities.acknowledgesStart }

    let configuration: Configuration
    let logger: Logger
    /// The shared driver, with the dialect's codec and authorizer.
    let driver: TransportDriver<GraphQLDialect>

    /// Creates a transport.
    /// - Parameters:
    ///   - configuration: Endpoint, dialect, timeouts, clock, logging and metrics.
    ///   - connector: The socket engine (SwitchboardNIO's, or a scripted one in tests).
    public init(configuration: Configuration, connector: any WebSocketConnector) {
        self.configuration = configuration
        let continuation: TransportEvents.Continuation
        (events, continuation) = TransportEvents.makeStream()
        var logger = configuration.logger
        logger[metadataKey: "switchboard.transport"] = "graphql"
        logger[metadataKey: "switchboard.graphql.protocol"] = "\(configuration.wireProtocol)"
        self.logger = logger
        let metrics = GraphQLSubscriberMetrics(
            factory: configuration.metricsFactory ?? MetricsSystem.factory, dialect: configuration.wireProtocol)
        let dialect = GraphQLDialect(configuration: configuration, connector: connector, logger: logger, metrics: metrics)
        driver = TransportDriver(dialect: dialect, clock: configuration.clock, events: continuation, name: "GraphQLSubscriber")
    }

    public func run() async throws {
        var random = configuration.random
        let settings = GraphQLConnectionStateMachine.Settings(
            dialect: configuration.wireProtocol, policy: configuration.reconnectPolicy,
            ackTimeout: configuration.ackTimeout, keepAliveTimeout: configuration.keepAliveTimeout,
            pingInterval: configuration.pingInterval, pongTimeout: configuration.pongTimeout,
            idPrefix: GraphQLDialect.idPrefix(dialect: configuration.wireProtocol, random: &random))
        try await driver.run(machine: GraphQLConnectionStateMachine(settings: settings), state: (), random: random)
    }

    public func connect(as identity: TransportIdentity) { driver.yield(.connect(identity)) }

    public func disconnect() { driver.yield(.disconnect) }

    public func subscribe(_ request: SubscriptionRequest) throws {
        if driver.isShutDown { throw SwitchboardError(code: .shutDown, message: "the GraphQL transport is shut down") }
        guard case .graphQL = request.target else {
            throw SwitchboardError(
                code: .invalidConfiguration, message: "a graphql transport cannot subscribe to \(request.target)")
        }
        driver.yield(.subscribe(request))
    }

    public func unsubscribe(_ key: SubscriptionKey) { driver.yield(.unsubscribe(key)) }

    public func shutDown() { driver.shutDown() }
}
