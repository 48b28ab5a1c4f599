import Logging
import Metrics
import SwitchboardCore

extension BackendNotifier {
    /// Creates a notifier running the transport the selection names, made by `transports`, and
    /// keeps the registry to make another registered transport when
    /// ``switchTransport(to:)-(TransportSelection)`` asks for one: a switch works between any two
    /// registered transports, built-in or the app's own.
    ///
    /// ```swift
    /// var transports = TransportRegistry()
    /// transports.register(.appsync) { AppSyncEventsSubscriber(configuration: appSync, connector: connector) }
    /// transports.register("sse") { ServerSentEventsTransport(configuration: sse) }
    /// let selection = try TransportSelection.resolve(registered: transports.kinds)
    /// let notifier = try BackendNotifier(selection: selection, transports: transports, session: session)
    /// ```
    /// - Parameters:
    ///   - selection: The resolved `transport = <name>` setting.
    ///   - transports: The transports the app ships, by name.
    ///   - session: The sign-in state to follow.
    ///   - configuration: Transport-independent settings.
    ///   - broker: The broker to fan out through.
    ///   - filter: An optional filter applied before delivery.
    ///   - logger: Where to log.
    ///   - metricsFactory: Where metrics go; the global `MetricsSystem` by default.
    /// - Throws: ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` when no transport is
    ///   registered under the selected name (the message lists the registered names), or its
    ///   factory throws or makes a transport of another kind. The error is logged at info.
    public init(
        selection: TransportSelection,
        transports: TransportRegistry,
        session: SessionSource,
        configuration: Configuration = Configuration(),
        broker: EventBroker = EventBroker(),
        filter: (any EventFilter)? = nil,
        logger: Logger = Logger(label: "switchboard.notifier", factory: { _ in SwiftLogNoOpLogHandler() }),
        metricsFactory: (any MetricsFactory)? = nil
    ) throws {
        do {
            try self.init(
                selection: selection, session: session, configuration: configuration, broker: broker, filter: filter,
                logger: logger, metricsFactory: metricsFactory, transportFactory: { kind in try transports.makeTransport(kind) })
        } catch {
            logger.info("no transport for the selection", metadata: [
                "switchboard.transport.requested": "\(selection)", "switchboard.error": "\(error)"])
            throw error
        }
    }
}
