import Logging
import NIOCore
import NIOPosix

extension NIOWebSocketConnector {
    /// How ``NIOWebSocketConnector`` opens connections.
    ///
    /// Every field has a production default, so `Configuration()` is a working setup; tests
    /// usually change ``clock`` (to a manual clock) and ``tls`` (to trust a test certificate).
    public struct Configuration: Sendable {
        /// The event loops the sockets run on. Default: `MultiThreadedEventLoopGroup.singleton`.
        public var eventLoopGroup: any EventLoopGroup
        /// How `wss` connections verify the server. Default: the system's trust roots and full
        /// verification (certificate chain and host name or IP address).
        public var tls: TLS
        /// The largest single frame accepted from the server, in bytes. A larger frame closes the
        /// connection with 1009 (message too big). Default: 1 MiB.
        public var maximumFrameSize: Int
        /// The largest message accepted after reassembling fragments, in bytes. A larger message
        /// closes the connection with 1009. Default: 4 MiB.
        public var maximumMessageSize: Int
        /// How long the TCP connect may take, enforced by the event loop's socket layer (it must
        /// abandon in-flight Happy Eyeballs attempts itself). Default: 10 seconds.
        public var connectTimeout: Duration
        /// How long the TLS handshake plus the HTTP upgrade may take once TCP is connected,
        /// measured on ``clock``. Default: 10 seconds.
        public var upgradeTimeout: Duration
        /// How long ``NIOWebSocketConnection/close(code:reason:)`` waits for the server's close
        /// frame before closing TCP, measured on ``clock``. Default: 5 seconds.
        public var closeTimeout: Duration
        /// The clock for ``upgradeTimeout``, ``closeTimeout`` and ping round trips. Tests pass a
        /// manual clock. Default: `ContinuousClock()`.
        public var clock: any Clock<Duration>
        /// Where connection lifecycle (debug) and frame (trace) lines go. Header values and
        /// subprotocols are never logged. Default: a logger that discards everything.
        public var logger: Logger
        /// Whether plaintext `ws` may reach hosts other than this machine. Off by default:
        /// credentials travel in the upgrade request, so anything beyond loopback needs `wss`
        /// unless this is set (a trusted network, a TLS-terminating sidecar).
        public var allowsPlaintextToRemoteHosts = false
        /// How many bytes of what the server sent one connection may hold between the socket
        /// and whoever consumes it (the transport, then the notifier, until it handed each event
        /// to its consumers' buffers): each message counts its payload plus about 320 bytes of
        /// bookkeeping. At the bound the connection stops reading the socket until half of it is
        /// consumed, so TCP slows the server down instead of memory growing with a backlog;
        /// fragments of a message still being reassembled are bounded by
        /// ``maximumMessageSize`` instead. Default: 1 MiB (about 2,000 small events).
        public var maximumBufferedInboundBytes = 1 << 20

        /// Creates a configuration.
        /// - Parameters:
        ///   - eventLoopGroup: The event loops the sockets run on.
        ///   - tls: How `wss` connections verify the server.
        ///   - maximumFrameSize: The largest frame accepted, in bytes (at least 125).
        ///   - maximumMessageSize: The largest reassembled message accepted, in bytes.
        ///   - connectTimeout: The TCP connect deadline.
        ///   - upgradeTimeout: The TLS + HTTP upgrade deadline, on `clock`.
        ///   - closeTimeout: How long a client close waits for the server's close frame, on `clock`.
        ///   - clock: The clock for the upgrade and close deadlines and ping round trips.
        ///   - logger: Where debug and trace lines go.
        public init(
            eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
            tls: TLS = TLS(),
            maximumFrameSize: Int = 1 << 20,
            maximumMessageSize: Int = 4 << 20,
            connectTimeout: Duration = .seconds(10),
            upgradeTimeout: Duration = .seconds(10),
            closeTimeout: Duration = .seconds(5),
            clock: any Clock<Duration> = ContinuousClock(),
            logger: Logger = Logger(label: "switchboard.nio", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.eventLoopGroup = eventLoopGroup
            self.tls = tls
            self.maximumFrameSize = maximumFrameSize
            self.maximumMessageSize = maximumMessageSize
            self.connectTimeout = connectTimeout
            self.upgradeTimeout = upgradeTimeout
            self.closeTimeout = closeTimeout
            self.clock = clock
            self.logger = logger
        }
    }
}
