import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

/// The AWS AppSync Events ``/SwitchboardCore/EventTransport``.
///
/// ```swift
/// let transport = AppSyncEventsTransport(
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
public final class AppSyncEventsTransport: EventTransport {
    public let kind = TransportKind.appsync
    public let events: TransportEvents

    let configuration: Configuration
    let connector: any WebSocketConnector
    let continuation: TransportEvents.Continuation
    let inputs: HandOff<Input>
    let inputContinuation: HandOff<Input>.Continuation
    let lifecycle = LockedValue((running: false, shutDown: false))
    let publishTickets = LockedValue<UInt64>(0)
    let logger: Logger
    let metrics: AppSyncMetrics

    enum Input: Sendable {
        case connect(TransportIdentity)
        case disconnect
        case subscribe(SubscriptionKey, channel: String)
        case unsubscribe(SubscriptionKey)
        case shutDown
        case opened(generation: Int, any WebSocketConnection)
        case openFailed(generation: Int, SwitchboardError, authorization: Bool)
        /// A frame or close, with the time the socket delivered it.
        case inbound(generation: Int, WebSocketInboundEvent, receivedAt: Elapsed)
        case ended(generation: Int, SwitchboardError?)
        case timer
        case publish(ticket: UInt64, channel: String, events: [String], CheckedContinuation<AppSyncPublishResult, any Error>)
        case cancelPublish(ticket: UInt64)
        /// A subscribe or publish frame, authorized off the driver loop, ready to go out on `generation`.
        case authorized(generation: Int, frame: String)
        /// The authorization for a subscribe could not be made.
        case subscribeUnauthorized(generation: Int, SubscriptionKey, SwitchboardError)
        /// The authorization for a publish could not be made.
        case publishUnauthorized(id: String, SwitchboardError)
        /// The owner asked for a connection check.
        case verifyConnection(timeout: Duration)
        /// The pong of a check's ping on `generation`, with the time it arrived.
        case ponged(generation: Int, roundTrip: Duration, receivedAt: Elapsed)
        /// A check's ping on `generation` failed.
        case pingFailed(generation: Int, SwitchboardError)
    }

    /// - Parameters:
    ///   - configuration: Endpoint, authorization, timing, logging and metrics.
    ///   - connector: The socket engine: SwitchboardNIO's `NIOWebSocketConnector`, or a scripted
    ///     one in tests.
    public init(configuration: Configuration, connector: any WebSocketConnector) {
        self.configuration = configuration
        self.connector = connector
        (events, continuation) = TransportEvents.makeStream()
        (inputs, inputContinuation) = HandOff<Input>.makeStream()
        var logger = configuration.logger
        logger[metadataKey: "switchboard.transport"] = "appsync"
        self.logger = logger
        metrics = AppSyncMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory)
    }

    public func run() async throws {
        enum Start { case run, running, shutDown }
        let start = lifecycle.withLock { state -> Start in
            if state.running { return .running }
            if state.shutDown { return .shutDown }
            state.running = true
            return .run
        }
        switch start {
        case .running: throw SwitchboardError(code: .shutDown, message: "AppSyncEventsTransport.run() is already running")
        case .shutDown: return
        case .run: break
        }
        defer { lifecycle.withLock { $0.running = false } }
        await drive()
    }

    public func connect(as identity: TransportIdentity) { inputContinuation.yield(.connect(identity)) }

    public func disconnect() { inputContinuation.yield(.disconnect) }

    public func subscribe(_ request: SubscriptionRequest) throws {
        if lifecycle.withLock({ $0.shutDown }) {
            throw SwitchboardError(code: .shutDown, message: "the AppSync transport is shut down")
        }
        guard case .channel(let channel) = request.target else {
            throw SwitchboardError(code: .invalidConfiguration, message: "an appsync transport cannot subscribe to \(request.target)")
        }
        let path = try ChannelPath(channel, allowWildcard: true)
        inputContinuation.yield(.subscribe(request.key, channel: "/\(path)"))
    }

    public func unsubscribe(_ key: SubscriptionKey) { inputContinuation.yield(.unsubscribe(key)) }

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
        if lifecycle.withLock({ $0.shutDown }) {
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
                if case .terminated = inputContinuation.yield(.publish(ticket: ticket, channel: "/\(path)", events: events, continuation)) {
                    continuation.resume(throwing: SwitchboardError(code: .shutDown, message: "the AppSync transport is shut down"))
                }
            }
        } onCancel: {
            inputContinuation.yield(.cancelPublish(ticket: ticket))
        }
    }

    public func shutDown() {
        let (first, running) = lifecycle.withLock { state -> (Bool, Bool) in
            defer { state.shutDown = true }
            return (!state.shutDown, state.running)
        }
        guard first else { return }
        if running {
            inputContinuation.yield(.shutDown)
        } else {
            continuation.yield(.connectionStateChanged(.shutDown))
            continuation.finish()
            inputContinuation.finish()
        }
    }
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
