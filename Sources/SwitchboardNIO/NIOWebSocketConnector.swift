import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import SwitchboardCore

/// Opens WebSocket connections (`ws` and `wss`) on SwiftNIO.
///
/// It offers every subprotocol of the request in one `Sec-WebSocket-Protocol` header, sends the
/// request's headers, and reports the subprotocol the server chose. It throws
/// ``WebSocketHandshakeError`` when the server answers with anything but `101` (with the status
/// and the start of the body) or chooses no offered subprotocol, ``SwitchboardError`` with
/// ``SwitchboardError/Code/network`` when the TCP or TLS connection fails, and
/// ``SwitchboardError/Code/timeout`` when connecting or upgrading takes too long. Credentials in
/// headers or `header-…` subprotocols are never logged or put in an error.
public struct NIOWebSocketConnector: WebSocketConnector {
    /// How connections are made.
    public struct Configuration: Sendable {
        /// The event loops connections run on.
        public var eventLoopGroup: any EventLoopGroup
        /// TLS for `wss` URLs: trust roots, verification, protocols. The default trusts the
        /// system's roots and verifies the host name. To trust a private CA or a self-signed
        /// server, set `tls.trustRoots = .certificates([...])` or add
        /// `tls.additionalTrustRoots`.
        public var tls: TLSConfiguration
        /// The largest single frame accepted from the server (the decoder's limit).
        public var maximumFrameSize: Int
        /// The largest message accepted after reassembling fragments.
        public var maximumMessageSize: Int
        /// How long the TCP (and TLS) connect may take.
        public var connectTimeout: Duration
        /// How long the server may take to answer the upgrade request, measured on ``clock``.
        public var upgradeTimeout: Duration
        /// How long ``NIOWebSocketConnection/close(code:reason:)`` waits for the server's close
        /// frame before closing TCP, measured on ``clock``.
        public var closeTimeout: Duration
        /// The clock for the upgrade and close timeouts (tests inject a manual clock).
        public var clock: any Clock<Duration>
        /// Where lifecycle (debug) and frame (trace) lines go.
        public var logger: Logger

        /// The defaults: 1 MiB frames, 16 MiB messages, 10 s to connect and to upgrade, 5 s for
        /// the close handshake, the system's trust roots.
        public init(
            eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
            tls: TLSConfiguration = .makeClientConfiguration(),
            maximumFrameSize: Int = 1 << 20,
            maximumMessageSize: Int = 16 << 20,
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

    public let configuration: Configuration

    /// Creates a connector.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        try await open(request)
    }

    /// Like ``connect(_:)``, returning the concrete connection (for ``NIOWebSocketConnection/ping(payload:)``).
    public func open(_ request: WebSocketRequest) async throws -> NIOWebSocketConnection {
        let target = try Target(request.url)
        let logger = configuration.logger
        logger.debug("connecting", metadata: ["websocket.host": "\(target.host)", "websocket.port": "\(target.port)"])
        let sslContext: NIOSSLContext?
        do {
            sslContext = target.secure ? try NIOSSLContext(configuration: configuration.tls) : nil
        } catch {
            throw SwitchboardError(code: .invalidConfiguration, message: "the TLS configuration is invalid", cause: error)
        }
        let head = Self.requestHead(request, target: target)
        let channelBox = LockedValue<(any Channel)?>(nil)
        let maximumFrameSize = configuration.maximumFrameSize

        let upgrade: EventLoopFuture<UpgradeOutcome>
        do {
            upgrade = try await ClientBootstrap(group: configuration.eventLoopGroup)
                .connectTimeout(TimeAmount(configuration.connectTimeout))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connect(host: target.host, port: target.port) { channel in
                    channelBox.withLock { $0 = channel }
                    return channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: target.serverNameIndication)
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        // Protocol errors are answered by WebSocketClientHandler, which must report
                        // them before the channel closes.
                        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeOutcome>(
                            maxFrameSize: maximumFrameSize,
                            enableAutomaticErrorHandling: false,
                            upgradePipelineHandler: { channel, response in
                                channel.eventLoop.makeSucceededFuture(.upgraded(channel, response))
                            })
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<UpgradeOutcome>(
                            upgradeRequestHead: head,
                            upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.eventLoop.makeCompletedFuture {
                                    let promise = channel.eventLoop.makePromise(of: (HTTPResponseHead, ByteBuffer).self)
                                    try channel.pipeline.syncOperations.addHandler(HandshakeResponseCollector(promise: promise))
                                    return .rejected(promise.futureResult)
                                }
                            })
                        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: .init(upgradeConfiguration: configuration))
                    }
                }
        } catch ChannelError.connectTimeout(let amount) {
            throw SwitchboardError(
                code: .timeout, message: "connecting to \(target) timed out", cause: ChannelError.connectTimeout(amount))
        } catch {
            throw SwitchboardError(code: .network, message: "cannot connect to \(target)", cause: error)
        }

        let channel = channelBox.withLock { $0 }
        do {
            return try await withDeadline(configuration.upgradeTimeout, onTimeout: { channel?.close(promise: nil) }) {
                try await self.finishHandshake(upgrade.get(), request: request, target: target)
            }
        } catch let error as SwitchboardError {
            channel?.close(promise: nil)
            throw error
        } catch let error as WebSocketHandshakeError {
            channel?.close(promise: nil)
            throw error
        } catch {
            // TLS handshake failures, resets during the upgrade, malformed HTTP answers.
            channel?.close(promise: nil)
            throw SwitchboardError(code: .network, message: "the WebSocket handshake with \(target) failed: \(error)", cause: error)
        }
    }

    private func finishHandshake(_ outcome: UpgradeOutcome, request: WebSocketRequest, target: Target) async throws
        -> NIOWebSocketConnection
    {
        switch outcome {
        case .rejected(let response):
            let (head, body) = try await response.get()
            configuration.logger.debug("upgrade refused", metadata: ["websocket.status": "\(head.status.code)"])
            throw WebSocketHandshakeError(
                reason: .unexpectedStatus(Int(head.status.code)),
                body: String(decoding: body.readableBytesView, as: UTF8.self))
        case .upgraded(let channel, let response):
            let chosen = response.headers.first(name: "Sec-WebSocket-Protocol")?.trimmingCharacters(in: .whitespaces)
            let offered = request.subprotocols
            if chosen.map({ !offered.contains($0) }) ?? !offered.isEmpty {
                try? await channel.close()
                throw WebSocketHandshakeError(reason: .subprotocolNotNegotiated(offered: offered, chosen: chosen))
            }
            let (inbound, continuation) = WebSocketInbound.makeStream()
            let lifecycle = ConnectionLifecycle()
            let handler = try await channel.eventLoop.submit {
                let handler = WebSocketClientHandler(
                    continuation: continuation, maximumMessageSize: configuration.maximumMessageSize,
                    lifecycle: lifecycle, logger: configuration.logger)
                try channel.pipeline.syncOperations.addHandler(handler)
                return NIOLoopBound(handler, eventLoop: channel.eventLoop)
            }.get()
            configuration.logger.debug("connected", metadata: ["websocket.host": "\(target.host)"])
            return NIOWebSocketConnection(
                subprotocol: chosen, inbound: inbound, channel: channel, handler: handler, lifecycle: lifecycle,
                clock: configuration.clock, closeTimeout: configuration.closeTimeout)
        }
    }

    /// Runs `body`, or throws ``SwitchboardError/Code/timeout`` after `timeout` on the clock
    /// (calling `onTimeout` first so `body` can end).
    private func withDeadline<T: Sendable>(
        _ timeout: Duration, onTimeout: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let clock = configuration.clock
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                onTimeout()
                throw SwitchboardError(code: .timeout, message: "the server did not answer the WebSocket upgrade within \(timeout)")
            }
            return value
        }
    }

    static func requestHead(_ request: WebSocketRequest, target: Target) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.hostHeader)
        headers.add(name: "Content-Length", value: "0")
        if !request.subprotocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: request.subprotocols.joined(separator: ", "))
        }
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: target.requestURI, headers: headers)
    }
}

/// The outcome of the upgrade request.
enum UpgradeOutcome: Sendable {
    case upgraded(any Channel, HTTPResponseHead)
    case rejected(EventLoopFuture<(HTTPResponseHead, ByteBuffer)>)
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
