import Logging

extension URLSessionWebSocketConnector {
    /// How ``URLSessionWebSocketConnector`` opens connections.
    ///
    /// Every field has a production default, so `Configuration()` is a working setup. The system
    /// decides the rest: it verifies `wss` servers against the device's trust store (system
    /// trust only), and applies the device's proxy, VPN and cellular settings.
    public struct Configuration: Sendable {
        /// The largest message accepted, in bytes; a larger one closes the connection with 1009
        /// (message too big). Default: 4 MiB, the same as `NIOWebSocketConnector`.
        public var maximumMessageSize: Int
        /// How long the connect, the TLS handshake and the WebSocket upgrade together may take,
        /// measured on ``clock``. Default: 20 seconds.
        public var connectTimeout: Duration
        /// How long ``URLSessionWebSocketConnection/close(code:reason:)`` waits for the close
        /// handshake before ending the task, measured on ``clock``. Default: 5 seconds.
        public var closeTimeout: Duration
        /// The clock for ``connectTimeout``, ``closeTimeout`` and ping round trips. Tests pass a
        /// manual clock. Default: `ContinuousClock()`.
        public var clock: any Clock<Duration>
        /// Where connection lifecycle lines (debug) go. Header values and subprotocols are never
        /// logged. Default: a logger that discards everything.
        public var logger: Logger
        /// Whether plaintext `ws` may reach hosts other than this machine. Off by default:
        /// credentials travel in the upgrade request, so anything beyond loopback needs `wss`.
        public var allowsPlaintextToRemoteHosts = false
        /// How many bytes of what the server sent one connection may hold between the socket
        /// and whoever consumes it (the transport, then the notifier, until it handed each event
        /// to its consumers' buffers): each message counts its payload plus about 320 bytes of
        /// bookkeeping. At the bound the connection asks the task for no further message until
        /// half of it is consumed, so the system's buffers and TCP slow the server down instead
        /// of memory growing with a backlog. Default: 1 MiB (about 2,000 small events).
        public var maximumBufferedInboundBytes = 1 << 20

        /// Creates a configuration.
        /// - Parameters:
        ///   - maximumMessageSize: The largest message accepted, in bytes (at least 125).
        ///   - connectTimeout: The connect, TLS and upgrade deadline, on `clock`.
        ///   - closeTimeout: How long a client close waits for the close handshake, on `clock`.
        ///   - clock: The clock for the deadlines and ping round trips.
        ///   - logger: Where debug lines go.
        public init(
            maximumMessageSize: Int = 4 << 20,
            connectTimeout: Duration = .seconds(20),
            closeTimeout: Duration = .seconds(5),
            clock: any Clock<Duration> = ContinuousClock(),
            logger: Logger = Logger(label: "switchboard.urlsession", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.maximumMessageSize = maximumMessageSize
            self.connectTimeout = connectTimeout
            self.closeTimeout = closeTimeout
            self.clock = clock
            self.logger = logger
        }
    }
}
