import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwitchboardCore

/// One-shot HTTP/1.1 requests on SwiftNIO, trusting the same roots as ``NIOWebSocketConnector``.
///
/// It exists for the requests beside the WebSocket, such as an AppSync Events HTTP publish, where
/// `URLSession` cannot trust a private CA on Linux, and the sync fallback's pages on Linux (where
/// FoundationNetworking's `URLSession` can crash the process as its dispatch sources are torn
/// down). Its ``post(_:headers:body:)`` has the shape
/// of `SwitchboardAppSync`'s `AppSyncHTTPClient`, so a one-line adapter makes it the publisher's
/// client:
///
/// ```swift
/// struct TrustingClient: AppSyncHTTPClient {
///     let client: NIOHTTPClient
///     func post(_ url: URL, headers: [(name: String, value: String)], body: Data) async throws -> (status: Int, body: Data) {
///         try await client.post(url, headers: headers, body: body)
///     }
/// }
/// ```
///
/// Every failure is a ``/SwitchboardCore/SwitchboardError`` whose message names the cause: with
/// ``/SwitchboardCore/SwitchboardError/Code/network`` the refused connection, the connect deadline, the TLS handshake
/// (an untrusted certificate, a name mismatch), a connection closed before an answer, or an answer
/// that is not HTTP (a plain `http://` URL to a TLS port); ``/SwitchboardCore/SwitchboardError/Code/timeout`` when
/// no whole answer came within ``Configuration/requestTimeout``; ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration``
/// for a URL that is not `http`/`https` or plaintext to another machine. Header values never
/// appear in an error or a log line.
public struct NIOHTTPClient: Sendable {
    /// How requests are sent.
    public struct Configuration: Sendable {
        /// The event loops the sockets run on. Default: `MultiThreadedEventLoopGroup.singleton`.
        public var eventLoopGroup: any EventLoopGroup
        /// How `https` verifies the server; the same settings as the WebSocket connector's.
        public var tls: NIOWebSocketConnector.TLS
        /// How long the TCP connect may take. Default: 10 seconds.
        public var connectTimeout: Duration
        /// How long the TLS handshake, the request and the whole answer may take once connected,
        /// measured on ``clock``. Default: 30 seconds.
        public var requestTimeout: Duration
        /// The largest answer body accepted, in bytes. Default: 1 MiB.
        public var maximumResponseSize: Int
        /// Whether plaintext `http` may reach hosts other than this machine. Off by default:
        /// credentials travel in the request's headers.
        public var allowsPlaintextToRemoteHosts: Bool
        /// The clock for ``requestTimeout``. Default: `ContinuousClock()`.
        public var clock: any Clock<Duration>
        /// Where request outcomes go (debug). Default: a logger that discards everything.
        public var logger: Logger

        /// Creates a configuration.
        /// - Parameters:
        ///   - eventLoopGroup: The event loops the sockets run on.
        ///   - tls: How `https` verifies the server.
        ///   - connectTimeout: The TCP connect deadline.
        ///   - requestTimeout: The deadline for the handshake, request and answer, on `clock`.
        ///   - maximumResponseSize: The largest answer body accepted, in bytes.
        ///   - allowsPlaintextToRemoteHosts: Whether `http` may reach other machines.
        ///   - clock: The clock for `requestTimeout`.
        ///   - logger: Where debug lines go.
        public init(
            eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
            tls: NIOWebSocketConnector.TLS = .init(),
            connectTimeout: Duration = .seconds(10),
            requestTimeout: Duration = .seconds(30),
            maximumResponseSize: Int = 1 << 20,
            allowsPlaintextToRemoteHosts: Bool = false,
            clock: any Clock<Duration> = ContinuousClock(),
            logger: Logger = Logger(label: "switchboard.nio.http", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.eventLoopGroup = eventLoopGroup
            self.tls = tls
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maximumResponseSize = maximumResponseSize
            self.allowsPlaintextToRemoteHosts = allowsPlaintextToRemoteHosts
            self.clock = clock
            self.logger = logger
        }
    }

    /// How requests are sent.
    public let configuration: Configuration
    private let sslContexts = SSLContextCache()

    /// Creates a client.
    /// - Parameter configuration: How requests are sent; the defaults suit production.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Sends one `POST` and reads the whole answer.
    /// - Parameters:
    ///   - url: An `http` or `https` URL.
    ///   - headers: Extra request headers (`Host`, `Content-Length` and `Connection` are set here).
    ///   - body: The request body.
    /// - Returns: The status code and the answer body.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` as described on ``NIOHTTPClient``; `CancellationError`.
    public func post(_ url: URL, headers: [(name: String, value: String)], body: Data) async throws -> (status: Int, body: Data) {
        try await send(.POST, url, headers: headers, body: body)
    }

    /// Sends one `GET` and reads the whole answer.
    /// - Parameters:
    ///   - url: An `http` or `https` URL.
    ///   - headers: Extra request headers (`Host`, `Content-Length` and `Connection` are set here).
    /// - Returns: The status code and the answer body.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` as described on ``NIOHTTPClient``; `CancellationError`.
    public func get(_ url: URL, headers: [(name: String, value: String)]) async throws -> (status: Int, body: Data) {
        try await send(.GET, url, headers: headers, body: nil)
    }

    private func send(
        _ method: HTTPMethod, _ url: URL, headers: [(name: String, value: String)], body: Data?
    ) async throws -> (status: Int, body: Data) {
        let target = try HTTPTarget(url: url)
        try target.checkTransportSecurity(allowingPlaintext: configuration.allowsPlaintextToRemoteHosts)
        let sslContext = target.isSecure ? try sslContexts.context(for: configuration.tls) : nil
        let failures = FirstFailure()
        let channel = try await connect(target, sslContext: sslContext, failures: failures)
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target.requestTarget)
        for (name, value) in headers where !HTTPTarget.managedHeaders.contains(name.lowercased()) {
            head.headers.add(name: name, value: value)
        }
        head.headers.replaceOrAdd(name: "Host", value: target.hostHeader)
        if let body { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        let request = head
        let limit = configuration.maximumResponseSize
        let requestTimeout = configuration.requestTimeout
        do {
            let answer = try await withDeadline(
                requestTimeout, on: configuration.clock,
                timeoutError: SwitchboardError(
                    code: .timeout, message: "\(target.endpoint) did not answer within \(requestTimeout.secondsDescription)"),
                onTimeout: { channel.channel.close(promise: nil) }
            ) {
                try await channel.executeThenClose { inbound, outbound in
                    // A server may answer (401, 413, 503) and close before it read the whole
                    // request: a failed write still reads what came back.
                    var writeFailure: (any Error)?
                    do {
                        var parts: [HTTPClientRequestPart] = [.head(request)]
                        if let body { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                        parts.append(.end(nil))
                        try await outbound.write(contentsOf: parts)
                    } catch {
                        writeFailure = error
                    }
                    do {
                        return try await Self.read(inbound, limit: limit, target: target)
                    } catch let error as SwitchboardError {
                        throw error
                    } catch {
                        throw writeFailure ?? error
                    }
                }
            }
            configuration.logger.debug("answered", metadata: [
                "switchboard.http.endpoint": "\(target.endpoint)", "switchboard.http.status": "\(answer.status)",
            ])
            return answer
        } catch {
            // A failed TLS handshake closes the channel; the write or read then fails with a
            // plain "closed" error, so the first error the pipeline saw names the cause.
            let mapped = HTTPTarget.requestError(failures.first ?? error, target: target)
            configuration.logger.debug("request failed", metadata: [
                "switchboard.http.endpoint": "\(target.endpoint)", "switchboard.error": "\(mapped)",
            ])
            throw mapped
        }
    }

    private func connect(
        _ target: HTTPTarget, sslContext: NIOSSLContext?, failures: FirstFailure
    ) async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        do {
            return try await ClientBootstrap(group: configuration.eventLoopGroup)
                .connectTimeout(TimeAmount(configuration.connectTimeout))
                .connect(host: target.host, port: target.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let sslContext {
                            let tls = try NIOSSLClientHandler(context: sslContext, serverHostname: target.serverName)
                            try channel.pipeline.syncOperations.addHandler(tls)
                        }
                        try channel.pipeline.syncOperations.addHandler(FailureRecorder(failures: failures))
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw HTTPTarget.connectError(error, target: target, timeout: configuration.connectTimeout)
        }
    }

    /// Reads the answer's head and body until its end.
    private static func read(
        _ inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>, limit: Int, target: HTTPTarget
    ) async throws -> (status: Int, body: Data) {
        var status: Int?
        var body = Data()
        for try await part in inbound {
            switch part {
            case .head(let head):
                status = Int(head.status.code)
            case .body(var buffer):
                guard body.count + buffer.readableBytes <= limit else {
                    throw SwitchboardError(
                        code: .network, message: "\(target.endpoint) answered with a body larger than \(limit) bytes")
                }
                body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
            case .end:
                guard let status else { break }
                return (status, body)
            }
        }
        throw HTTPTarget.closedBeforeAnswer(target)
    }
}

/// The first error a request's pipeline saw.
private final class FirstFailure: Sendable {
    private let error = LockedValue<(any Error)?>(nil)

    var first: (any Error)? { error.withLock { $0 } }

    func record(_ error: any Error) {
        self.error.withLock { $0 = $0 ?? error }
    }
}

/// Sits behind TLS and records the first error (a failed handshake), passing it on.
private final class FailureRecorder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let failures: FirstFailure

    init(failures: FirstFailure) { self.failures = failures }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failures.record(error)
        context.fireErrorCaught(error)
    }
}
