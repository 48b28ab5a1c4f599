import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import SwitchboardCore

/// A local server that speaks the AWS AppSync Events protocol (WebSocket `/event/realtime` and
/// HTTP `POST /event`, plus its own batch publish `POST /events`) and the legacy GraphQL
/// subscriptions (WebSocket `/graphql`: `graphql-ws`, `graphql-transport-ws` and the AppSync
/// GraphQL dialect) so Switchboard can be demonstrated and tested without a cloud account. The
/// same events are also served as server-sent events (`GET /sse/v1/events`, see
/// ``Endpoints/serverSentEventsURL``), for transports that do not speak WebSocket.
///
/// It binds `127.0.0.1` only. Run it embedded in a test with
/// ``withRunningEmulator(configuration:clock:_:)``:
///
/// ```swift
/// let configuration = SwitchboardEmulator.Configuration(auth: .init(apiKeys: ["key"]), logger: logger)
/// try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
///     // connect to endpoints.realtimeURL …
///     try emulator.publish(channel: "vortex-app/user/42/roleChanged", event: #"{"reason":"x"}"#)
/// }
/// ```
public struct SwitchboardEmulator: Sendable {
    /// The configuration the emulator runs with.
    public let configuration: Configuration
    let bus: EventBus
    let registry = ConnectionRegistry()
    let faults = FaultState()
    let serverSentEvents = ServerSentEventsStreams()
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date

    /// Creates an emulator; nothing listens until ``run(onStart:)``.
    /// - Parameters:
    ///   - configuration: Port, auth and pacing.
    ///   - clock: The clock for keep-alives and time-based faults.
    public init(configuration: Configuration, clock: any Clock<Duration> = ContinuousClock()) {
        let offset = configuration.clockOffset.seconds
        self.init(configuration: configuration, clock: clock, now: { Date().addingTimeInterval(offset) })
    }

    init(configuration: Configuration, clock: any Clock<Duration>, now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.clock = clock
        self.now = now
        self.bus = EventBus(log: EventLog(capacity: configuration.eventLogCapacity, now: now))
    }

    /// The log the sync endpoints serve.
    var log: EventLog { bus.log }

    /// Binds `127.0.0.1`, reports the endpoints, and serves until the calling task is cancelled
    /// (graceful shutdown).
    /// - Parameter onStart: Called once the server listens, with its endpoints.
    /// - Throws: If the port cannot be bound.
    public func run(onStart: @escaping @Sendable (Endpoints) async -> Void = { _ in }) async throws {
        let recorder = try configuration.recordingPath.map { try FrameRecorder(path: $0, clock: clock) }
        defer { recorder?.close() }
        let router = Router(context: EmulatorRequestContext.self)
        HTTPPublishRoute(configuration: configuration, bus: bus, now: now).register(on: router)
        ControlRoutes(emulator: self).register(on: router)
        ServerSentEventsRoutes(
            configuration: configuration, bus: bus, registry: registry, faults: faults, streams: serverSentEvents,
            clock: clock, now: now
        ).register(on: router)
        SyncRoutes(stream: SyncStreamDriver(
            configuration: configuration, log: bus.log, registry: registry, faults: faults, recorder: recorder, clock: clock,
            now: now)
        ).register(on: router)
        let driver = AppSyncConnectionDriver(
            configuration: configuration, bus: bus, registry: registry, faults: faults, recorder: recorder,
            clock: clock, now: now)
        router.ws("/event/realtime") { request, _ in
            guard SubprotocolOffer.offered(request.headers).contains(AppSyncConnectionDriver.subprotocol) else {
                return .dontUpgrade
            }
            return .upgrade([.secWebSocketProtocol: AppSyncConnectionDriver.subprotocol])
        } onUpgrade: { inbound, outbound, context in
            try await driver.run(
                headers: context.request.headers, channel: context.requestContext.channel,
                inbound: inbound, outbound: outbound)
        }
        let graphQLDriver = GraphQLConnectionDriver(
            configuration: configuration, bus: bus, registry: registry, faults: faults, recorder: recorder,
            clock: clock, now: now)
        router.ws("/graphql") { request, _ in
            guard let subprotocol = GraphQLConnectionDriver.negotiate(request.headers) else { return .dontUpgrade }
            return .upgrade([.secWebSocketProtocol: subprotocol])
        } onUpgrade: { inbound, outbound, context in
            try await graphQLDriver.run(
                headers: context.request.headers, headerParameter: context.request.uri.queryParameters["header"],
                channel: context.requestContext.channel, inbound: inbound, outbound: outbound)
        }
        let logger = configuration.logger
        let certificate = try configuration.tls ? EmulatorCertificate.make() : nil
        let faults = self.faults
        let webSocketResponder = router.buildResponder()
        let plain = HTTPServerBuilder { responder in
            MissingEndpointGate(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(ws: .init(maxFrameSize: 1 << 22, autoPing: .disabled))),
                isMissing: { path in path == SyncStreamDriver.endpoint && faults.syncStream?.kind == .disabled })
        }
        let app = Application(
            router: router,
            server: try certificate.map { try .tls(plain, tlsConfiguration: $0.serverConfiguration) } ?? plain,
            configuration: .init(address: .hostname("127.0.0.1", port: configuration.port), serverName: "SwitchboardEmulator"),
            onServerRunning: { channel in
                guard let port = channel.localAddress?.port else { return }
                logger.debug("emulator listening", metadata: ["emulator.port": "\(port)"])
                await onStart(Endpoints(port: port, certificatePEM: certificate?.pem))
            },
            logger: logger
        )
        // A server-sent events stream is a response that never ends by itself: end them all when
        // the server is told to stop, or its graceful shutdown would wait for them.
        let serverSentEvents = self.serverSentEvents
        try await withTaskCancellationHandler {
            try await app.run()
        } onCancel: {
            serverSentEvents.finishAll()
        }
    }

    /// Publishes an event in process, as the backend would: every matching subscriber of every
    /// protocol receives it.
    /// - Parameters:
    ///   - channel: A concrete channel (no `*`).
    ///   - event: The event's JSON text.
    /// - Returns: How many subscriptions received it.
    /// - Throws: ``SwitchboardError`` `invalidChannel` for a bad channel, `publishRejected` for
    ///   text that is not JSON or exceeds 240 KB.
    @discardableResult
    public func publish(channel: String, event: String) throws -> Int {
        let path = try ChannelPath(channel, allowWildcard: false)
        if case .success(let outcomes) = PublishValidator.validate(events: [event], identifiers: ["local"]),
            case .failed(_, _, _, let message) = outcomes[0]
        {
            throw SwitchboardError(code: .publishRejected, message: message)
        }
        return bus.publish(channel: path, event: event)
    }

    /// The number of open protocol connections.
    public var connectionCount: Int { registry.count }

    /// The number of live subscriptions across every connection.
    public var subscriptionCount: Int { bus.subscriptionCount }

    /// The number of live subscriptions of each connection that has any, by connection number
    /// (1, 2, … in the order connections opened).
    ///
    /// After a reconnect, the old connection's subscriptions may linger until the server notices
    /// it is gone; a test that waits for a connection numbered higher than the old one can tell
    /// when a client has subscribed again.
    public var subscriptionCountsByConnection: [Int: Int] { bus.subscriptionCounts }

    /// Whether some connection holds a live subscription under the client's wire id `id`. A test
    /// that saw a client send a subscribe can wait with it until the server has taken it in, on
    /// protocols that do not acknowledge subscriptions.
    package func holdsSubscription(id: String) -> Bool { bus.holds(id: id) }
}

/// Runs an emulator for the duration of `body`, then shuts it down gracefully.
/// - Parameters:
///   - configuration: The emulator's configuration (use port `0` in tests).
///   - clock: The clock for keep-alives and time-based faults.
///   - body: Runs while the emulator serves; gets the emulator and its endpoints.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or a bind failure.
@discardableResult
public func withRunningEmulator<Result: Sendable>(
    configuration: SwitchboardEmulator.Configuration,
    clock: any Clock<Duration> = ContinuousClock(),
    _ body: (SwitchboardEmulator, SwitchboardEmulator.Endpoints) async throws -> Result
) async throws -> Result {
    try await withRunningEmulator(SwitchboardEmulator(configuration: configuration, clock: clock), body)
}

/// Runs an existing emulator for the duration of `body`, then shuts it down gracefully.
/// - Parameters:
///   - emulator: The emulator to run.
///   - body: Runs while the emulator serves; gets the emulator and its endpoints.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or a bind failure.
@discardableResult
public func withRunningEmulator<Result: Sendable>(
    _ emulator: SwitchboardEmulator,
    _ body: (SwitchboardEmulator, SwitchboardEmulator.Endpoints) async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Void.self) { group in
        let (started, continuation) = AsyncStream.makeStream(of: SwitchboardEmulator.Endpoints.self)
        group.addTask {
            defer { continuation.finish() }
            try await emulator.run { continuation.yield($0) }
        }
        var iterator = started.makeAsyncIterator()
        guard let endpoints = await iterator.next() else {
            try await group.waitForAll()
            throw SwitchboardError(code: .network, message: "the emulator stopped before it listened")
        }
        let result = try await body(emulator, endpoints)
        group.cancelAll()
        do {
            try await group.waitForAll()
        } catch is CancellationError {
        }
        return result
    }
}
