import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

/// The AWS AppSync Events ``EventTransport``.
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
/// ``ConnectionState/disconnected(_:)`` with ``SwitchboardError/Code/sessionExpired``.
public final class AppSyncEventsTransport: EventTransport {
    public let kind = TransportKind.appsync
    public let events: TransportEvents

    let configuration: Configuration
    let connector: any WebSocketConnector
    let continuation: TransportEvents.Continuation
    let inputs: AsyncStream<Input>
    let inputContinuation: AsyncStream<Input>.Continuation
    let lifecycle = LockedValue((running: false, shutDown: false))
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
        case inbound(generation: Int, WebSocketInboundEvent)
        case ended(generation: Int, SwitchboardError?)
        case timer
    }

    /// - Parameters:
    ///   - configuration: Endpoint, authorization, timing, logging and metrics.
    ///   - connector: The socket engine: SwitchboardNIO's `NIOWebSocketConnector`, or a scripted
    ///     one in tests.
    public init(configuration: Configuration, connector: any WebSocketConnector) {
        self.configuration = configuration
        self.connector = connector
        (events, continuation) = TransportEvents.makeStream()
        (inputs, inputContinuation) = AsyncStream<Input>.makeStream()
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

/// The transport's counters: `switchboard.appsync.{connections,reconnects,subscriptions,events,decode_failures}`.
struct AppSyncMetrics: Sendable {
    let connections: Counter
    let reconnects: Counter
    let subscriptions: Counter
    let events: Counter
    let decodeFailures: Counter

    init(factory: any MetricsFactory) {
        func counter(_ name: String) -> Counter { Counter(label: "switchboard.appsync.\(name)", factory: factory) }
        connections = counter("connections")
        reconnects = counter("reconnects")
        subscriptions = counter("subscriptions")
        events = counter("events")
        decodeFailures = counter("decode_failures")
    }
}
