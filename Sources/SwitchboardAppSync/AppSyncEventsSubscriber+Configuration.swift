import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

extension AppSyncEventsSubscriber {
    /// Where and how the transport connects.
    public struct Configuration: Sendable {
        /// The real-time endpoint: `wss://<id>.appsync-realtime-api.<region>.amazonaws.com/event/realtime`
        /// (or a custom domain's `/event/realtime`).
        public var realtimeURL: URL
        /// The API's HTTP host, sent as `host` in every authorization. Nil derives it from
        /// ``realtimeURL`` (`appsync-realtime-api` → `appsync-api` for `*.amazonaws.com`; the
        /// URL's host and port otherwise, which suits the local emulator). Set it for custom
        /// domains.
        public var host: String?
        /// The authorization mode: for the connection, every subscribe and every publish.
        public var authorization: AppSyncAuthorization
        /// When to reconnect after a connection is lost.
        public var reconnectPolicy: ReconnectPolicy
        /// How long to wait for `connection_ack`.
        public var ackTimeout: Duration
        /// How long a connection is used before it is replaced, make-before-break: a new socket
        /// is connected and subscribed before the old one closes, and no event is delivered
        /// twice. AppSync closes connections after 24 h; the default replaces them after 23 h,
        /// leaving time for retries (a failed replacement is tried again every minute while the
        /// old connection works). Nil keeps each connection until it ends.
        public var connectionLifetime: Duration?
        /// How long a ``AppSyncEventsSubscriber/publish(_:to:)`` waits for the connection and the
        /// server's answer before it fails with ``/SwitchboardCore/SwitchboardError/Code/timeout``.
        public var publishTimeout: Duration
        /// The clock for the ack timeout, the keep-alive watchdog, reconnect delays, the
        /// connection lifetime and publish timeouts.
        public var clock: any Clock<Duration>
        /// The random source for backoff jitter and subscription ids.
        public var random: any RandomNumberGenerator & Sendable
        /// Lifecycle at debug, frames at trace; never a token or key.
        public var logger: Logger
        /// Where the counters go; nil uses the global `MetricsSystem`.
        public var metricsFactory: (any MetricsFactory)?

        public init(
            realtimeURL: URL,
            host: String? = nil,
            authorization: AppSyncAuthorization,
            reconnectPolicy: ReconnectPolicy = .standard,
            ackTimeout: Duration = .seconds(10),
            connectionLifetime: Duration? = .seconds(23 * 3600),
            publishTimeout: Duration = .seconds(10),
            clock: any Clock<Duration> = ContinuousClock(),
            random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
            logger: Logger = Logger(label: "switchboard.appsync", factory: { _ in SwiftLogNoOpLogHandler() }),
            metricsFactory: (any MetricsFactory)? = nil
        ) {
            self.realtimeURL = realtimeURL
            self.host = host
            self.authorization = authorization
            self.reconnectPolicy = reconnectPolicy
            self.ackTimeout = ackTimeout
            self.connectionLifetime = connectionLifetime
            self.publishTimeout = publishTimeout
            self.clock = clock
            self.random = random
            self.logger = logger
            self.metricsFactory = metricsFactory
        }
    }
}
