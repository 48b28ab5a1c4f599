import Foundation
import Logging
import Metrics
import SwitchboardCore

/// The one object apps talk to: typed streams of backend events over whichever transport the
/// configuration selects.
///
/// ```swift
/// let session = SessionSource()
/// let notifier = BackendNotifier(transport: transport, session: session)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await notifier.run() }
///     session.update(.signedIn(userId: "u1", orgId: "o1") { _ in try await auth.idToken() })
///     for await presence in await notifier.devicePresenceValues() { … }
/// }
/// ```
///
/// The notifier follows the ``SessionSource``: on sign-in it connects and subscribes to the
/// fewest subscriptions that cover what consumers asked for; on a change of user or organization
/// it unsubscribes everything, reconnects as the new identity and subscribes again, without
/// ending consumers' streams; on sign-out it disconnects and cancels any pending reconnect.
/// Each stream method returns a new, independent stream; a consumer that stops iterating is
/// released, and when a stream has no consumers left its subscription is dropped. Events are
/// decoded once, filtered by the optional ``EventFilter`` and fanned out through the
/// ``EventBroker``, which also carries connection-state changes and errors as system events.
public actor BackendNotifier {
    /// Settings that do not depend on the transport.
    public struct Configuration: Sendable {
        /// The AppSync Events channel namespace; `vortex-app` by default.
        public var namespace: String

        /// Creates a configuration.
        /// - Parameter namespace: The AppSync Events channel namespace.
        public init(namespace: String = "vortex-app") {
            self.namespace = namespace
        }
    }

    enum Input: Sendable {
        case session(Session)
        case transport(TransportEvent)
        case transportFinished((any Error)?)
        case consumerEnded(Int)
        case observerEnded(Int)
    }

    enum Lifecycle { case idle, running, shutDown }

    struct Consumer {
        var stream: StreamID
        var subscription: EventSubscription
        var finish: @Sendable () -> Void
    }

    /// The transport this notifier uses; exactly one is active.
    public nonisolated let transportKind: TransportKind
    /// The broker every event, connection-state change and error goes through.
    public nonisolated let broker: EventBroker

    let transport: any EventTransport
    let sessionSource: SessionSource
    let configuration: Configuration
    let filter: (any EventFilter)?
    let logger: Logger
    let metrics: NotifierMetrics
    let inputs: AsyncStream<Input>
    let inputContinuation: AsyncStream<Input>.Continuation
    let decoder = JSONDecoder()

    var lifecycle = Lifecycle.idle
    var identity: TransportIdentity?
    var consumers: [Int: Consumer] = [:]
    var nextConsumerID = 0
    var table = SubscriptionTable()
    var reportedPlanFailures: Set<StreamID> = []
    var connectionState = ConnectionState.idle
    var stateObservers: [Int: AsyncStream<ConnectionState>.Continuation] = [:]
    var errorObservers: [Int: AsyncStream<SwitchboardError>.Continuation] = [:]

    /// Creates a notifier over one transport.
    /// - Parameters:
    ///   - transport: The transport to use. The notifier drives it; do not share it.
    ///   - session: The sign-in state to follow.
    ///   - configuration: Transport-independent settings.
    ///   - broker: The broker to fan out through; a new one by default.
    ///   - filter: An optional filter applied before delivery; none by default.
    ///   - logger: Where to log (lifecycle at debug, frames at trace); nothing by default.
    ///   - metricsFactory: Where metrics go; the global `MetricsSystem` by default.
    public init(
        transport: any EventTransport,
        session: SessionSource,
        configuration: Configuration = Configuration(),
        broker: EventBroker = EventBroker(),
        filter: (any EventFilter)? = nil,
        logger: Logger = Logger(label: "switchboard.notifier", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.transport = transport
        self.transportKind = transport.kind
        self.sessionSource = session
        self.configuration = configuration
        self.broker = broker
        self.filter = filter
        var logger = logger
        logger[metadataKey: "switchboard.transport"] = "\(transport.kind)"
        self.logger = logger
        self.metrics = NotifierMetrics(factory: metricsFactory ?? MetricsSystem.factory, transport: transport.kind)
        (inputs, inputContinuation) = AsyncStream<Input>.makeStream()
    }

    /// Creates a notifier with the transport the selection names: `factory` is called once, for
    /// exactly that kind.
    /// - Parameters:
    ///   - selection: The resolved `transport = graphql | appsync` setting.
    ///   - factory: Makes the transport of a kind.
    ///   - session: The sign-in state to follow.
    ///   - configuration: Transport-independent settings.
    ///   - broker: The broker to fan out through.
    ///   - filter: An optional filter applied before delivery.
    ///   - logger: Where to log.
    /// - Throws: Whatever `factory` throws, typically ``SwitchboardError/Code/invalidConfiguration``.
    public init(
        selection: TransportSelection,
        factory: (TransportKind) throws -> any EventTransport,
        session: SessionSource,
        configuration: Configuration = Configuration(),
        broker: EventBroker = EventBroker(),
        filter: (any EventFilter)? = nil,
        logger: Logger = Logger(label: "switchboard.notifier", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        let transport = try factory(selection.kind)
        guard transport.kind == selection.kind else {
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "the factory made a \(transport.kind) transport for transport = \(selection.kind)")
        }
        self.init(transport: transport, session: session, configuration: configuration, broker: broker,
                  filter: filter, logger: logger)
    }

    /// Runs the notifier and its transport until ``shutDown()`` or cancellation. Call it once.
    ///
    /// When it returns, every stream the notifier handed out has finished.
    /// - Throws: ``SwitchboardError/Code/shutDown`` when called again or after ``shutDown()``.
    public func run() async throws {
        guard lifecycle == .idle else {
            throw SwitchboardError(code: .shutDown, message: "BackendNotifier.run() was already called")
        }
        lifecycle = .running
        logger.debug("notifier starting")
        let transport = self.transport
        let sessions = sessionSource.updates()
        let inputs = inputContinuation
        await withDiscardingTaskGroup { group in
            group.addTask {
                do {
                    try await transport.run()
                    inputs.yield(.transportFinished(nil))
                } catch {
                    inputs.yield(.transportFinished(error))
                }
            }
            group.addTask {
                for await session in sessions { inputs.yield(.session(session)) }
            }
            group.addTask {
                for await event in transport.events { inputs.yield(.transport(event)) }
            }
            for await input in self.inputs {
                if case .transportFinished(let error) = input {
                    if let error { logger.debug("transport ended", metadata: ["switchboard.error": "\(error)"]) }
                    break
                }
                handle(input)
            }
            group.cancelAll()
        }
        finishEverything()
        logger.debug("notifier stopped")
    }

    /// Disconnects, shuts the transport down, finishes every stream and makes ``run()`` return.
    public func shutDown() {
        guard lifecycle != .shutDown else { return }
        finishEverything()
    }

    func finishEverything() {
        lifecycle = .shutDown
        transport.shutDown()
        inputContinuation.finish()
        let finished = consumers.values
        consumers.removeAll()
        for consumer in finished {
            consumer.subscription.cancel()
            consumer.finish()
        }
        for observer in stateObservers.values { observer.finish() }
        for observer in errorObservers.values { observer.finish() }
        stateObservers.removeAll()
        errorObservers.removeAll()
    }

    func handle(_ input: Input) {
        switch input {
        case .session(let session): apply(session)
        case .transport(let event): handle(event)
        case .consumerEnded(let id):
            guard consumers.removeValue(forKey: id) != nil else { return }
            reconcile()
        case .observerEnded(let id):
            stateObservers[id] = nil
            errorObservers[id] = nil
        case .transportFinished: break
        }
    }
}
