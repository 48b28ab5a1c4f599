import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

/// The AWS AppSync Events ``/SwitchboardCore/EventTransport``.
///
/// ```swift
/// let transport = AppSyncEventsSubscriber(
///     configuration: .init(
///         realtimeURL: URL(string: "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!,
///         authorization: .sessionToken),      // Cognito / OIDC / Lambda token from the session
///     connector: NIOWebSocketConnector())
/// let notifier = BackendNotifier(transport: transport, session: session)
/// ```
///
/// Commands only enqueue work; ``run()`` performs it in one driver loop, where a pure state
/// machine decides and the loop carries out its actions. Each connection is one-shot: a
/// reconnect opens a new socket, and frames from an old one are ignored. A subscription is
/// reported established only on `subscribe_success`, is never unsubscribed before that, and is
/// sent again with a fresh id after every reconnect. An authorization failure at connect fetches
/// a fresh token once (`refreshAfterRejection`), then reports
/// ``/SwitchboardCore/ConnectionState/disconnected(_:)`` with ``/SwitchboardCore/SwitchboardError/Code/sessionExpired``.
public final class AppSyncEventsSubscriber: EventTransport {
    public let kind = TransportKind.appsync
    public let events: TransportEvents
    /// True: every AppSync Events event carries the backend's `timestamp` (contract §2).
    public var liveEventsCarryLogTimes: Bool { true }

    let configuration: Configuration
    let logger: Logger
    /// The shared driver, with AppSync's codec, authorizer and publishes.
    let driver: TransportDriver<AppSyncDialect>
    let publishTickets = LockedValue<UInt64>(0)

    /// - Parameters:
    ///   - configuration: Endpoint, authorization, timing, logging and metrics.
    ///   - connector: The socket engine: SwitchboardNIO's `NIOWebSocketConnector`, or a scripted
    ///     one in tests.
    public init(configuration: Configuration, connector: any WebSocketConnector) {
        self.configuration = configuration
        let continuation: TransportEvents.Continuation
        (events, continuation) = TransportEvents.makeStream()
        var logger = configuration.logger
        logger[metadataKey: "switchboard.transport"] = "appsync"
        self.logger = logger
        let dialect = AppSyncDialect(
            configuration: configuration, connector: connector, logger: logger,
            metrics: AppSyncMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory))
        driver = TransportDriver(dialect: dialect, clock: configuration.clock, events: continuation, name: "AppSyncEventsSubscriber")
    }

    public func run() async throws {
        var random = configuration.random
        let machine = AppSyncConnectionMachine(
            ackTimeout: configuration.ackTimeout, policy: configuration.reconnectPolicy,
            idPrefix: String(random.next() & 0xFFFF_FFFF, radix: 16), connectionLifetime: configuration.connectionLifetime)
        try await driver.run(machine: machine, state: AppSyncDialect.State(), random: random)
    }

    public func connect(as identity: TransportIdentity) { driver.yield(.connect(identity)) }

    public func disconnect() { driver.yield(.disconnect) }

    public func subscribe(_ request: SubscriptionRequest) throws {
        if driver.isShutDown {
            throw SwitchboardError(code: .shutDown, message: "the AppSync transport is shut down")
        }
        guard case .channel(let channel) = request.target else {
            throw SwitchboardError(code: .invalidConfiguration, message: "an appsync transport cannot subscribe to \(request.target)")
        }
        let path = try ChannelPath(channel, allowWildcard: true)
        driver.yield(.subscribe(SubscriptionRequest(key: request.key, target: .channel("/\(path)"))))
    }

    public func unsubscribe(_ key: SubscriptionKey) { driver.yield(.unsubscribe(key)) }

    /// Publishes one to five events over the connection.
    ///
    /// Everything is checked before anything is sent: the channel follows the naming rules and
    /// has no `*`, there are one to five events, and each is JSON text of at most 240 KB. A
    /// publish made while the transport is still connecting waits for the connection; it is
    /// authorized on its own (a fresh token, or a SigV4 signature over exactly these events).
    /// For more than five events, or without a connection, use ``AppSyncHTTPPublisher``.
    /// - Parameters:
    ///   - events: JSON texts, each sent as a string (subscribers receive each one separately).
    ///   - channel: The channel, for example `vortex-app/user/u-1/roleChanged`.
    /// - Returns: Which events the service accepted and which it refused, with its code and
    ///   message, by position in `events`.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidChannel`` or
    ///   ``/SwitchboardCore/SwitchboardError/Code/publishRejected`` (invalid input; nothing sent, or the server
    ///   refused the whole publish); ``/SwitchboardCore/SwitchboardError/Code/sessionExpired`` (refused
    ///   credentials); ``/SwitchboardCore/SwitchboardError/Code/network`` (not connected and not connecting, or
    ///   the connection ended before the answer); ``/SwitchboardCore/SwitchboardError/Code/timeout`` (no answer
    ///   within ``Configuration/publishTimeout``); ``/SwitchboardCore/SwitchboardError/Code/shutDown``;
    ///   `CancellationError` when the calling task is cancelled.
    public func publish(_ events: [String], to channel: String) async throws -> AppSyncPublishResult {
        let path = try ChannelPath(channel, allowWildcard: false)
        guard events.count <= AppSyncHTTPPublisher.maximumEventsPerRequest else {
            throw SwitchboardError(
                code: .publishRejected,
                message: "a publish over the socket carries at most \(AppSyncHTTPPublisher.maximumEventsPerRequest) events, got \(events.count); AppSyncHTTPPublisher splits larger ones")
        }
        try AppSyncHTTPPublisher.validate(events)
        if driver.isShutDown {
            throw SwitchboardError(code: .shutDown, message: "the AppSync transport is shut down")
        }
        let ticket = publishTickets.withLock { value -> UInt64 in
            value += 1
            return value
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Cancelled before it was queued: the cancellation handler has already run.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if case .terminated = driver.yield(.command(.publish(ticket: ticket, channel: "/\(path)", events: events, continuation))) {
                    continuation.resume(throwing: SwitchboardError(code: .shutDown, message: "the AppSync transport is shut down"))
                }
            }
        } onCancel: {
            driver.yield(.command(.cancelPublish(ticket: ticket)))
        }
    }

    public func shutDown() { driver.shutDown() }
}

/// The transport's counters: `switchboard.appsync.{connections,reconnects,replacements,subscriptions,events,decode_failures}`
/// and `switchboard.appsync.publish.{accepted,refused,failed}` (events accepted or refused by the
/// server; publishes that failed as a whole).
struct AppSyncMetrics: Sendable {
    let connections: Counter
    let reconnects: Counter
    let replacements: Counter
    let publishAccepted: Counter
    let publishRefused: Counter
    let publishFailed: Counter
    let subscriptions: Counter
    let events: Counter
    let decodeFailures: Counter

    init(factory: any MetricsFactory) {
        func counter(_ name: String) -> Counter { Counter(label: "switchboard.appsync.\(name)", factory: factory) }
        connections = counter("connections")
        reconnects = counter("reconnects")
        replacements = counter("replacements")
        publishAccepted = counter("publish.accepted")
        publishRefused = counter("publish.refused")
        publishFailed = counter("publish.failed")
        subscriptions = counter("subscriptions")
        events = counter("events")
        decodeFailures = counter("decode_failures")
    }
}
