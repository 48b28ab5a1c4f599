import Foundation
import Logging
import Metrics
import SwitchboardCore
import SwitchboardSync

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
///
/// The transport can be switched while the notifier runs (``switchTransport(to:)-(TransportKind)``,
/// or by following a configuration key with the `SwitchboardConfiguration` product): the old
/// transport stops before the new one connects, consumers' streams continue, and nothing is
/// delivered twice across the switch. See <doc:SwitchingTransportsLive>.
public actor BackendNotifier {
    /// Makes the transport of a kind, for a switch at runtime.
    public typealias TransportFactory = @Sendable (TransportKind) throws -> any EventTransport

    /// The transport this notifier uses; exactly one is active. It changes when a switch at
    /// runtime completes (``TransportChangedEvent``).
    public nonisolated var transportKind: TransportKind { activeKind.withLock { $0 } }
    /// The broker every event, connection-state change and error goes through.
    public nonisolated let broker: EventBroker

    /// The active transport; while a switch is pending, the one being stopped.
    var transport: any EventTransport
    /// The generation whose events are accepted, the switch of transport that waits for the
    /// previous one to stop, and the callers waiting for it.
    var switching = Switching()
    let activeKind: LockedValue<TransportKind>
    let transportFactory: TransportFactory?
    let slots: AsyncStream<TransportSlot>
    let slotContinuation: AsyncStream<TransportSlot>.Continuation
    let sessionSource: SessionSource
    let configuration: Configuration
    var logger: Logger
    var metrics: NotifierMetrics
    let inputs: HandOff<Input>
    let inputContinuation: HandOff<Input>.Continuation
    /// The event path from envelope to broker.
    let delivery: EventDelivery

    var lifecycle = Lifecycle.idle
    /// Who is signed in, as the session gave it, and whether a change of connection is a gap.
    /// Transports get ``SessionTokens/identity(for:)``.
    var session = SessionFollower()
    /// The signed-in session's token provider, read by the identities transports connect with.
    let tokens = SessionTokens()
    /// Whether the app's lifecycle and the network path let the transport connect.
    var gate = ConnectionGate()
    var consumers: [Int: Consumer] = [:]
    var nextConsumerID = 0
    var subscriptions = SubscriptionBook()
    var connectionState = ConnectionState.idle
    /// The observers of connection states, errors and stream statuses.
    var observers = ObserverBook()
    /// Catch-up's machine (when ``Configuration/catchUp`` is set) and its queues to the runner.
    var catchUp: CatchUpControl
    /// The notifier's monotonic timeline, on which connections open and close and the session
    /// starts, and what the sync answers taught of the backend's clock (contract §6, "Clocks").
    /// Read it to see how far this device's clock is from the backend's:
    /// `backendClock.reading(at: backendClock.now())` against `Date()`.
    public nonisolated let backendClock: BackendClock

    /// Creates a notifier over one transport.
    /// - Parameters:
    ///   - transport: The transport to use. The notifier drives it; do not share it.
    ///   - session: The sign-in state to follow.
    ///   - configuration: Transport-independent settings.
    ///   - broker: The broker to fan out through; a new one by default.
    ///   - filter: An optional filter applied before delivery; none by default.
    ///   - logger: Where to log (lifecycle at debug, frames at trace); nothing by default.
    ///   - metricsFactory: Where metrics go; the global `MetricsSystem` by default.
    ///   - transportFactory: Makes a transport of a kind when ``switchTransport(to:)-(TransportKind)``
    ///     asks for another one; without it, the transport cannot be switched at runtime.
    public init(
        transport: any EventTransport,
        session: SessionSource,
        configuration: Configuration = Configuration(),
        broker: EventBroker = EventBroker(),
        filter: (any EventFilter)? = nil,
        logger: Logger = Logger(label: "switchboard.notifier", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsFactory: (any MetricsFactory)? = nil,
        transportFactory: TransportFactory? = nil
    ) {
        self.transport = transport
        self.activeKind = LockedValue(transport.kind)
        self.transportFactory = transportFactory
        self.sessionSource = session
        self.configuration = configuration
        self.broker = broker
        self.delivery = EventDelivery(broker: broker, filter: filter)
        var logger = logger
        logger[metadataKey: "switchboard.transport"] = "\(transport.kind)"
        self.logger = logger
        self.metrics = NotifierMetrics(factory: metricsFactory ?? MetricsSystem.factory, transport: transport.kind)
        self.catchUp = CatchUpControl(setting: configuration.catchUp, metricsFactory: metricsFactory ?? MetricsSystem.factory)
        self.backendClock = BackendClock(deviceNow: configuration.now)
        (inputs, inputContinuation) = HandOff<Input>.makeStream()
        (slots, slotContinuation) = AsyncStream<TransportSlot>.makeStream()
    }

    /// Creates a notifier with the transport the selection names, and keeps `transportFactory`
    /// to make another transport when ``switchTransport(to:)-(TransportSelection)`` asks for one.
    ///
    /// ```swift
    /// let notifier = try BackendNotifier(selection: selection, session: session) { kind in
    ///     switch kind {
    ///     case .graphql: GraphQLSubscriber(configuration: graphQL, connector: connector)
    ///     case .appsync: AppSyncEventsSubscriber(configuration: appSync, connector: connector)
    ///     default: throw SwitchboardError(code: .invalidConfiguration, message: "no \(kind) transport")
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - selection: The resolved `transport = graphql | appsync` setting.
    ///   - session: The sign-in state to follow.
    ///   - configuration: Transport-independent settings.
    ///   - broker: The broker to fan out through.
    ///   - filter: An optional filter applied before delivery.
    ///   - logger: Where to log.
    ///   - metricsFactory: Where metrics go; the global `MetricsSystem` by default.
    ///   - transportFactory: Makes the transport of a kind: now, for `selection`, and again for
    ///     every switch at runtime. It must return a new transport of exactly that kind each time.
    /// - Throws: ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` when `transportFactory` throws or
    ///   makes a transport of another kind.
    public init(
        selection: TransportSelection,
        session: SessionSource,
        configuration: Configuration = Configuration(),
        broker: EventBroker = EventBroker(),
        filter: (any EventFilter)? = nil,
        logger: Logger = Logger(label: "switchboard.notifier", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsFactory: (any MetricsFactory)? = nil,
        transportFactory: @escaping TransportFactory
    ) throws {
        let transport = try selection.makeTransport(with: transportFactory)
        self.init(transport: transport, session: session, configuration: configuration, broker: broker,
                  filter: filter, logger: logger, metricsFactory: metricsFactory, transportFactory: transportFactory)
    }

    /// Creates a notifier with the transport the selection names: `factory` is called once, for
    /// exactly that kind. The notifier does not keep it, so its transport cannot be switched at
    /// runtime; use ``init(selection:session:configuration:broker:filter:logger:metricsFactory:transportFactory:)``
    /// for that.
    /// - Parameters:
    ///   - selection: The resolved `transport = graphql | appsync` setting.
    ///   - factory: Makes the transport of a kind.
    ///   - session: The sign-in state to follow.
    ///   - configuration: Transport-independent settings.
    ///   - broker: The broker to fan out through.
    ///   - filter: An optional filter applied before delivery.
    ///   - logger: Where to log.
    /// - Throws: Whatever `factory` throws, typically ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration``.
    public init(
        selection: TransportSelection,
        factory: (TransportKind) throws -> any EventTransport,
        session: SessionSource,
        configuration: Configuration = Configuration(),
        broker: EventBroker = EventBroker(),
        filter: (any EventFilter)? = nil,
        logger: Logger = Logger(label: "switchboard.notifier", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        let transport = try selection.kind.expecting(try factory(selection.kind), from: "the factory")
        self.init(transport: transport, session: session, configuration: configuration, broker: broker,
                  filter: filter, logger: logger)
    }

    /// Runs the notifier and its transport until ``shutDown()`` or cancellation. Call it once.
    ///
    /// When it returns, every stream the notifier handed out has finished.
    /// - Throws: ``/SwitchboardCore/SwitchboardError/Code/shutDown`` when called again or after ``shutDown()``.
    public func run() async throws {
        guard lifecycle == .idle else {
            throw SwitchboardError(code: .shutDown, message: "BackendNotifier.run() was already called")
        }
        lifecycle = .running
        logger.debug("notifier starting")
        slotContinuation.yield(TransportSlot(generation: switching.generation, transport: transport))
        let slots = self.slots
        let sessions = sessionSource.updates()
        let inputs = inputContinuation
        let (orders, acknowledgementWaits) = (catchUp.orders, catchUp.acknowledgementWaits)
        catchUp.start(at: backendClock.now(), backendTime: backendClock.estimate)
        // The path the first connection uses; the monitor's sequence starts with it again.
        if let monitor = configuration.networkPaths { gate.start(on: monitor.currentPath) }
        await withDiscardingTaskGroup { group in
            if let setting = catchUp.setting {
                let runner = CatchUpRunner(
                    setting: setting, broker: broker, backendClock: backendClock, isRunning: { await self.lifecycle == .running },
                    deliver: { await self.deliverCaughtUp($0) }, failed: { await self.catchUpFailed($0, attempt: $1) },
                    ended: { await self.catchUpEnded($0) })
                group.addTask { await runner.run(orders) }
                group.addTask {
                    await runner.timeAcknowledgements(acknowledgementWaits) { wait in
                        await self.catchUpStep { $0.acknowledgementDeadlinePassed(wait, readiness: $1) }
                    }
                }
            }
            // One transport at a time: the next one starts only after the previous one's run()
            // returned and its events stopped being read.
            group.addTask {
                for await slot in slots { await self.drive(slot) }
            }
            group.addTask {
                for await session in sessions { inputs.yield(.session(session)) }
            }
            if let monitor = configuration.networkPaths {
                group.addTask {
                    for await path in monitor.paths() { inputs.yield(.networkPath(path)) }
                }
            }
            for await input in self.inputs {
                if case .transportFinished(let finished, let error) = input, switching.isFinalEnd(of: finished) {
                    if let error { logger.debug("transport ended", metadata: ["switchboard.error": "\(error)"]) }
                    break
                }
                handle(input)
                publishStreamStatuses()
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

    /// Runs one transport until its `run()` returns, handling its events on the actor as they
    /// arrive: the transport's queue is the only hand-off between its driver and the consumers'
    /// streams. Reports the end through `inputs` once the last event was handled.
    func drive(_ slot: TransportSlot) async {
        let transport = slot.transport
        let backendClock = backendClock
        transport.events.stampingStateChanges(with: { backendClock.now() })
        let error = await withTaskGroup(of: (any Error)?.self, returning: (any Error)?.self) { group in
            group.addTask {
                // `run()` returns after a shutdown or when cancelled; shutting down (again) makes
                // sure its events end too.
                defer { transport.shutDown() }
                do {
                    try await transport.run()
                    return nil
                } catch {
                    return error
                }
            }
            // Read on the actor: buffered events are taken without suspending. State changes
            // carry when the transport reported them: this actor may read them behind a backlog.
            var events = transport.events.makeAsyncIterator()
            while let stamped = await events.nextStamped(isolation: self) {
                // The frame's bytes go back to the socket's budget once the event is handed on
                // (consumers' buffers are bounded on their own).
                defer { stamped.charge.release() }
                let event = stamped.event
                guard slot.generation == switching.generation else {
                    dropStale(event)
                    continue
                }
                handle(event, seenAt: stamped.yieldedAt)
                // An event changes only its stream's last event time, which delivery publishes.
                if case .received = event {} else { publishStreamStatuses() }
            }
            return await group.next() ?? nil
        }
        inputContinuation.yield(.transportFinished(generation: slot.generation, error))
    }

    func finishEverything() {
        lifecycle = .shutDown
        transport.shutDown()
        let (abandoned, waiters) = switching.shutDown()
        abandoned?.shutDown()
        for waiter in waiters {
            waiter.resume(throwing: SwitchboardError(code: .shutDown, message: "the notifier shut down during a switch of transport"))
        }
        inputContinuation.finish()
        slotContinuation.finish()
        catchUp.finish()
        let finished = consumers.values
        consumers.removeAll()
        for consumer in finished {
            consumer.subscription.cancel()
            consumer.finish()
        }
        observers.finish()
    }

    func handle(_ input: Input) {
        switch input {
        case .session(let update): apply(update)
        case .consumerEnded(let id):
            guard consumers.removeValue(forKey: id) != nil else { return }
            reconcile()
        case .observerEnded(let id):
            observers.remove(id)
        case .transportFinished(let finished, let error):
            if let pending = switching.previousStopped(finished) { completeSwitch(pending, previousError: error) }
        case .switchWaitCancelled(let id):
            switching.removeWaiter(id)?.resume(throwing: CancellationError())
        case .networkPath(let path):
            apply(path)
        }
    }
}
