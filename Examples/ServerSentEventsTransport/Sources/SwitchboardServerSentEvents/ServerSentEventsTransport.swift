import Foundation
import Logging
import Synchronization
import SwitchboardCore

/// Switchboard's events over server-sent events: one `text/event-stream` per connection, and a
/// subscription added or removed with one HTTP request each, answered in order on the stream.
///
/// Written against Switchboard's public API alone, as an outside team would: it conforms to
/// `EventTransport`, plans its own subscriptions (``plan(streams:identity:namespace:)``), and
/// passes `SwitchboardTesting`'s `TransportConformance`. Register it with a notifier under
/// ``kind`` (`sse`):
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(ServerSentEventsTransport.kind) { ServerSentEventsTransport(configuration: sse) }
/// ```
///
/// The wire (the Switchboard emulator serves it at `/sse/v1/events`):
/// - `GET {streamURL}` with `Authorization: <token>` → `200 text/event-stream`, first `ready`
///   `{"connectionId"}`; `401`/`403` for refused credentials.
/// - `POST {streamURL}/{connectionId}/subscriptions` `{"id", "channel"}` → `202`; the answer
///   comes on the stream: `subscribed` `{"id"}` or `subscribe_error` `{"id", "message"}`.
/// - `DELETE {streamURL}/{connectionId}/subscriptions/{id}` → `204`.
/// - `data` `{"id", "event"}`: an event's JSON text on a subscription.
public final class ServerSentEventsTransport: EventTransport {
    /// The name it is registered and selected under: `transport = sse`.
    public static let kind: TransportKind = "sse"

    public var kind: TransportKind { Self.kind }
    public let events: TransportEvents

    let configuration: Configuration
    private let continuation: TransportEvents.Continuation
    private let inputs: AsyncStream<Input>
    private let inputContinuation: AsyncStream<Input>.Continuation
    private let lifecycle = Mutex(Lifecycle.idle)

    private enum Lifecycle { case idle, running, shutDown }

    /// Creates a transport; nothing happens until ``run()`` and ``connect(as:)``.
    /// - Parameter configuration: Where it connects, and its policy, clock and logger.
    public init(configuration: Configuration) {
        self.configuration = configuration
        (events, continuation) = TransportEvents.makeStream()
        (inputs, inputContinuation) = AsyncStream.makeStream(of: Input.self)
    }

    /// Runs the transport until ``shutDown()`` or cancellation.
    /// - Throws: `SwitchboardError` with code `shutDown` when it is already running.
    public func run() async throws {
        let previous = lifecycle.withLock { state in
            defer { if state == .idle { state = .running } }
            return state
        }
        switch previous {
        case .running: throw SwitchboardError(code: .shutDown, message: "ServerSentEventsTransport.run() is already running")
        case .shutDown: return
        case .idle: break
        }
        configuration.logger.debug("sse transport running")
        let requests = HTTPRequests(configuration: configuration)
        await withDiscardingTaskGroup { group in
            var driver = Driver(
                configuration: configuration, requests: requests, emit: { [continuation] in continuation.yield($0) },
                inputs: inputContinuation)
            for await input in inputs {
                if case .shutDown = input { break }
                driver.handle(input, in: &group)
            }
            driver.stop()
            group.cancelAll()
        }
        requests.close()
        finish()
    }

    public func connect(as identity: TransportIdentity) { inputContinuation.yield(.connect(identity)) }

    public func disconnect() { inputContinuation.yield(.disconnect) }

    /// Adds a subscription to a channel.
    /// - Throws: `invalidChannel` for a channel that breaks the naming rules, `invalidConfiguration`
    ///   for a GraphQL operation (this transport subscribes to channels only), `shutDown` after
    ///   ``shutDown()``.
    public func subscribe(_ request: SubscriptionRequest) throws {
        guard lifecycle.withLock({ $0 }) != .shutDown else {
            throw SwitchboardError(code: .shutDown, message: "the sse transport is shut down")
        }
        guard case .channel(let channel) = request.target else {
            throw SwitchboardError(
                code: .invalidConfiguration, message: "the sse transport subscribes to channels, not to \(request.target)")
        }
        let path = try ChannelPath(channel, allowWildcard: true)
        inputContinuation.yield(.subscribe(request.key, channel: path.description))
    }

    public func unsubscribe(_ key: SubscriptionKey) { inputContinuation.yield(.unsubscribe(key)) }

    public func shutDown() {
        let wasIdle = lifecycle.withLock { state in
            defer { state = .shutDown }
            return state == .idle
        }
        inputContinuation.yield(.shutDown)
        if wasIdle { finish() }
    }

    private func finish() {
        lifecycle.withLock { $0 = .shutDown }
        inputContinuation.finish()
        continuation.yield(.connectionStateChanged(.shutDown))
        continuation.finish()
    }
}

extension ServerSentEventsTransport {
    /// Where and how the transport connects.
    public struct Configuration: Sendable {
        /// The event stream, such as `http://127.0.0.1:8080/sse/v1/events`; subscriptions are
        /// added below it.
        public var streamURL: URL
        /// When to reconnect after a connection is lost.
        public var reconnectPolicy: ReconnectPolicy
        /// How long the stream may stay silent before it counts as lost (the emulator sends a
        /// comment every keep-alive interval, 60 s by default).
        public var idleTimeout: Duration
        /// The clock for reconnect delays.
        public var clock: any Clock<Duration>
        /// The random source for backoff jitter.
        public var random: any RandomNumberGenerator & Sendable
        /// The receive time stamped on envelopes.
        public var now: @Sendable () -> Date
        /// Lifecycle at debug, events at trace; never a token.
        public var logger: Logger

        /// Creates a configuration.
        public init(
            streamURL: URL,
            reconnectPolicy: ReconnectPolicy = .standard,
            idleTimeout: Duration = .seconds(300),
            clock: any Clock<Duration> = ContinuousClock(),
            random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
            now: @escaping @Sendable () -> Date = { Date() },
            logger: Logger = Logger(label: "switchboard.sse", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.streamURL = streamURL
            self.reconnectPolicy = reconnectPolicy
            self.idleTimeout = idleTimeout
            self.clock = clock
            self.random = random
            self.now = now
            self.logger = logger
        }
    }

    /// What the driver reacts to: the owner's commands, and what its own child tasks found out,
    /// tagged with the connection they belong to so a stale one is ignored.
    enum Input: Sendable {
        case connect(TransportIdentity)
        case disconnect
        case subscribe(SubscriptionKey, channel: String)
        case unsubscribe(SubscriptionKey)
        case shutDown
        case event(connection: Int, ServerSentEvent)
        case lost(connection: Int, SwitchboardError)
        case refused(connection: Int, SwitchboardError)
        case subscribeFailed(connection: Int, wireId: String, SwitchboardError, rejected: Bool)
        case reconnectDue(connection: Int)
    }
}
