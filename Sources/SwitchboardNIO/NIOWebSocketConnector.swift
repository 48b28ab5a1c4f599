import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import SwitchboardCore

/// Opens WebSocket connections (`ws` and `wss`) on SwiftNIO; SwitchboardCore's
/// `WebSocketConnector` seam for the transports.
///
/// It offers every subprotocol of the request in one `Sec-WebSocket-Protocol` header, sends the
/// request's headers and reports the subprotocol the server chose. `connect` throws:
///
/// - `WebSocketHandshakeError` when the server answers with anything but `101` (with the status
///   and the first 4 KiB of the body), or accepts without choosing an offered subprotocol;
/// - ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/network`` when the TCP connect (refused,
///   DNS) or the TLS handshake fails, or the server closes during the upgrade (the error is the
///   `cause`);
/// - ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/timeout`` when the connect or the upgrade
///   takes too long;
/// - ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` for a URL that is
///   not `ws`/`wss`, an invalid header, or unusable TLS settings;
/// - `CancellationError` when the calling task is cancelled (the socket is closed).
///
/// Header values and subprotocols (a `header-…` subprotocol carries credentials) never appear in
/// an error or a log line.
public struct NIOWebSocketConnector: WebSocketConnector {
    /// How connections are opened.
    public let configuration: Configuration
    private let sslContexts = SSLContextCache()

    /// Creates a connector.
    /// - Parameter configuration: How connections are opened; the defaults suit production.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Opens and upgrades a connection (the seam's entry point). See ``open(_:)``.
    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        try await open(request)
    }

    /// Opens and upgrades a connection, returning the concrete type (for
    /// ``NIOWebSocketConnection/sendPing(_:)``).
    /// - Parameter request: What to open.
    /// - Returns: The open connection. Close it with ``NIOWebSocketConnection/close(code:reason:)``.
    /// - Throws: See ``NIOWebSocketConnector``.
    public func open(_ request: WebSocketRequest) async throws -> NIOWebSocketConnection {
        let target = try WebSocketTarget(url: request.url)
        try target.checkTransportSecurity(allowingPlaintext: configuration.allowsPlaintextToRemoteHosts)
        var logger = configuration.logger
        logger[metadataKey: "switchboard.websocket.endpoint"] = "\(target.endpoint)"
        let (head, ignored) = try UpgradeRequest.head(for: request, target: target)
        if !ignored.isEmpty {
            logger.debug("ignoring request headers the engine sets itself", metadata: [
                "switchboard.websocket.headers": "\(ignored.joined(separator: ", "))",
            ])
        }
        let sslContext = target.isSecure ? try sslContexts.context(for: configuration.tls) : nil
        logger.debug("connecting", metadata: [
            "switchboard.websocket.tls": "\(target.isSecure)",
            "switchboard.websocket.subprotocols.offered": "\(request.subprotocols.count)",
        ])

        let settings = WebSocketConnectionHandler.Settings(
            maximumMessageSize: configuration.maximumMessageSize,
            maximumFrameSize: configuration.maximumFrameSize,
            closeTimeout: configuration.closeTimeout,
            clock: configuration.clock,
            logger: logger)
        let (channel, upgrade) = try await connectSocket(target: target, head: head, sslContext: sslContext, settings: settings)
        let handshake: Handshake
        do {
            handshake = try await withDeadline(
                configuration.upgradeTimeout, on: configuration.clock,
                timeoutError: .connectionTimeout(
                    .connect,
                    "the WebSocket upgrade with \(target.endpoint) took longer than \(configuration.upgradeTimeout.secondsDescription)"),
                onTimeout: { channel.close(promise: nil) }
            ) {
                switch try await upgrade.get() {
                case .upgraded(let webSocket, let response): .upgraded(webSocket, response)
                case .rejected(let rejection): .rejected(try await rejection.get())
                }
            }
        } catch {
            channel.close(promise: nil)
            let mapped = Self.handshakeError(error, target: target)
            logger.debug("upgrade failed", metadata: ["switchboard.error": "\(mapped)"])
            throw mapped
        }

        switch handshake {
        case .rejected(let rejection):
            channel.close(promise: nil)
            logger.debug("upgrade refused", metadata: ["switchboard.websocket.status": "\(rejection.status)"])
            throw WebSocketHandshakeError(reason: .unexpectedStatus(rejection.status), body: rejection.body)
        case .upgraded(let webSocket, let response):
            let subprotocol: String?
            do {
                subprotocol = try UpgradeRequest.negotiatedSubprotocol(offered: request.subprotocols, response: response)
            } catch {
                logger.debug("subprotocol not negotiated; closing")
                await Self.fail(webSocket, code: .protocolError, reason: "subprotocol not negotiated")
                throw error
            }
            logger.debug("connected", metadata: [
                "switchboard.websocket.subprotocol": "\(Self.loggable(subprotocol))",
            ])
            return NIOWebSocketConnection.start(channel: webSocket, subprotocol: subprotocol)
        }
    }

    /// The outcome of the upgrade request once the rejection body (if any) has been read.
    private enum Handshake: Sendable {
        case upgraded(UpgradedChannel, HTTPResponseHead)
        case rejected(UpgradeRejection)
    }

    /// Connects TCP and installs TLS and the HTTP upgrade; the upgrade request goes out as soon
    /// as the channel is active.
    private func connectSocket(
        target: WebSocketTarget, head: HTTPRequestHead, sslContext: NIOSSLContext?,
        settings: WebSocketConnectionHandler.Settings
    ) async throws -> (any Channel, EventLoopFuture<UpgradeOutcome>) {
        let maximumFrameSize = min(max(configuration.maximumFrameSize, 125), Int(UInt32.max))
        do {
            return try await ClientBootstrap(group: configuration.eventLoopGroup)
                .connectTimeout(TimeAmount(configuration.connectTimeout))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connect(host: target.host, port: target.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let upgrade = try Self.configurePipeline(
                            channel: channel, target: target, head: head, sslContext: sslContext,
                            maximumFrameSize: maximumFrameSize,
                            budget: InboundBudget(limit: configuration.maximumBufferedInboundBytes), settings: settings)
                        return (channel, upgrade)
                    }
                }
        } catch {
            let mapped = Self.connectError(error, target: target, timeout: configuration.connectTimeout)
            configuration.logger.debug("connect failed", metadata: [
                "switchboard.websocket.endpoint": "\(target.endpoint)", "switchboard.error": "\(mapped)",
            ])
            throw mapped
        }
    }

    /// Adds TLS (SNI only for host names), the HTTP codec and the typed WebSocket upgrader.
    private static func configurePipeline(
        channel: any Channel, target: WebSocketTarget, head: HTTPRequestHead, sslContext: NIOSSLContext?,
        maximumFrameSize: Int, budget: InboundBudget, settings: WebSocketConnectionHandler.Settings
    ) throws -> EventLoopFuture<UpgradeOutcome> {
        let gate = UpgradeCloseGate()
        try channel.pipeline.syncOperations.addHandler(gate)
        if let sslContext {
            let tls = try NIOSSLClientHandler(context: sslContext, serverHostname: target.serverName)
            try channel.pipeline.syncOperations.addHandler(tls)
        }
        // Protocol errors are answered by the connection's state machine (1002/1009), so NIO's
        // automatic error handler stays out.
        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeOutcome>(
            maxFrameSize: maximumFrameSize,
            enableAutomaticErrorHandling: false,
            upgradePipelineHandler: { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    .upgraded(try UpgradedChannel.install(on: channel, budget: budget, settings: settings), response)
                }
            })
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
            upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                upgradeRequestHead: head,
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let collector = UpgradeRejectionCollector(eventLoop: channel.eventLoop)
                        try channel.pipeline.syncOperations.addHandler(collector)
                        return .rejected(collector.rejection)
                    }
                }))
        // Frames the server sends right behind its 101 must reach the WebSocket decoder.
        configuration.leftOverBytesStrategy = .forwardBytes
        let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
        gate.release(after: upgrade)
        return upgrade
    }

    /// Sends a close frame on a freshly upgraded channel and closes it.
    private static func fail(_ webSocket: UpgradedChannel, code: WebSocketCloseCode, reason: String) async {
        let frame = WebSocketStateMachine.closeFrame(WebSocketClose(code: code, reason: reason))
        try? await webSocket.write(WebSocketFrame(fin: true, opcode: frame.opcode, maskKey: .random(), data: frame.payload))
        try? await webSocket.channel.close()
    }

    /// A subprotocol for a log line: `header-…` subprotocols carry credentials.
    static func loggable(_ subprotocol: String?) -> String {
        guard let subprotocol else { return "none" }
        return subprotocol.lowercased().hasPrefix("header-") ? "header-<redacted>" : subprotocol
    }
}

/// One `NIOSSLContext` per connector, made on the first `wss` connect (loading trust roots is
/// costly).
final class SSLContextCache: Sendable {
    private let cached = LockedValue<NIOSSLContext?>(nil)

    func context(for tls: NIOWebSocketConnector.TLS) throws(SwitchboardError) -> NIOSSLContext {
        if let context = cached.withLock({ $0 }) { return context }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: tls.nioConfiguration)
        } catch {
            throw SwitchboardError(code: .invalidConfiguration, message: "the TLS settings cannot be used", cause: error)
        }
        return cached.withLock { cached in
            if let existing = cached { return existing }
            cached = context
            return context
        }
    }
}
