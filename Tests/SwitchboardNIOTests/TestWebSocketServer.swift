import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket
import SwitchboardCore

/// How the test server answers one upgrade request.
enum TestHandshake: Sendable {
    /// `101`, choosing `subprotocol` (`nil`: no `Sec-WebSocket-Protocol` header).
    case accept(subprotocol: String?)
    /// Any other status, with a plain-text body.
    case reject(status: HTTPResponseStatus, body: String)
}

/// A scriptable raw-NIO WebSocket server on 127.0.0.1, port 0, plain or TLS.
///
/// Every test writes its own `handshake` (what to answer) and `session` (what to do once
/// upgraded); the server records each upgrade request, the TLS server name the client sent, and
/// each closed TCP connection.
struct TestWebSocketServer: Sendable {
    /// What the server does with a TCP connection.
    enum Mode: Sendable {
        /// Speaks HTTP and WebSocket.
        case webSocket(
            handshake: @Sendable (HTTPRequestHead) -> TestHandshake,
            session: @Sendable (ServerSession) async throws -> Void)
        /// Accepts TCP (and TLS) and never answers.
        case silent
        /// Answers the first bytes of the request with these bytes verbatim, then closes.
        case raw(response: String)
    }

    /// The port it listens on.
    let port: Int
    /// Every upgrade request, in order.
    let requests: AsyncStream<HTTPRequestHead>
    /// The SNI name of every TLS connection, `nil` when the client sent none.
    let serverNames: AsyncStream<String?>
    /// One element per TCP connection that closed.
    let closedConnections: AsyncStream<Void>

    /// A `ws`/`wss` URL for `path` on this server.
    func url(_ path: String = "/socket", host: String = "127.0.0.1", secure: Bool = false) -> URL {
        URL(string: "\(secure ? "wss" : "ws")://\(host):\(port)\(path)")!
    }

    /// Runs `body` against a fresh server, then shuts it down (closing every connection).
    static func with<Result: Sendable>(
        tls: TestCertificate? = nil,
        mode: Mode,
        _ body: (TestWebSocketServer) async throws -> Result
    ) async throws -> Result {
        let (requests, requestSink) = AsyncStream<HTTPRequestHead>.makeStream()
        let (serverNames, serverNameSink) = AsyncStream<String?>.makeStream()
        let (closedConnections, closedSink) = AsyncStream<Void>.makeStream()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture { () -> EventLoopFuture<Accepted> in
                    channel.closeFuture.whenComplete { _ in closedSink.yield() }
                    if let tls {
                        let eventLoop = channel.eventLoop
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SNIHandler { result in
                            switch result {
                            case .fallback: serverNameSink.yield(nil)
                            case .hostname(let name): serverNameSink.yield(name)
                            }
                            return eventLoop.makeSucceededVoidFuture()
                        }))
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.serverContext))
                    }
                    switch mode {
                    case .silent:
                        return channel.eventLoop.makeSucceededFuture(.silent(channel))
                    case .raw(let response):
                        try channel.pipeline.syncOperations.addHandler(RawResponder(response: response))
                        return channel.eventLoop.makeSucceededFuture(.silent(channel))
                    case .webSocket(let handshake, _):
                        return try configureWebSocket(channel, handshake: handshake, requests: requestSink)
                    }
                }
            }
        let server = TestWebSocketServer(
            port: listener.channel.localAddress!.port!, requests: requests, serverNames: serverNames,
            closedConnections: closedConnections)
        let session: (@Sendable (ServerSession) async throws -> Void)?
        if case .webSocket(_, let script) = mode { session = script } else { session = nil }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await listener.executeThenClose { connections in
                    await withTaskGroup(of: Void.self) { handlers in
                        do {
                            for try await accepted in connections {
                                handlers.addTask { await serve(accepted, session: session) }
                            }
                        } catch {
                            // The listener closed.
                        }
                        handlers.cancelAll()
                    }
                }
            }
            defer { group.cancelAll() }
            return try await body(server)
        }
    }

    /// What a connection became.
    enum Accepted: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, HTTPRequestHead)
        case rejected
        case silent(any Channel)
    }

    private static func configureWebSocket(
        _ channel: any Channel, handshake: @escaping @Sendable (HTTPRequestHead) -> TestHandshake,
        requests: AsyncStream<HTTPRequestHead>.Continuation
    ) throws -> EventLoopFuture<Accepted> {
        // NIO's upgrade handler keeps the request head of a declined upgrade to itself, so the
        // responder gets it from here.
        let declinedRequest = LockedValue<HTTPRequestHead?>(nil)
        let upgrader = NIOTypedWebSocketServerUpgrader<Accepted>(
            maxFrameSize: 1 << 24,
            enableAutomaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                requests.yield(head)
                guard case .accept(let subprotocol) = handshake(head) else {
                    declinedRequest.withLock { $0 = head }
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                if let subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    .webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel), head)
                }
            })
        var configuration = NIOUpgradableHTTPServerPipelineConfiguration(
            upgradeConfiguration: NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RejectingResponder(request: declinedRequest.withLock { $0 }, handshake: handshake))
                        return .rejected
                    }
                }))
        // A declined upgrade is reported as an error; NIO's error handler would close the
        // connection before the rejection is written.
        configuration.enableErrorHandling = false
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
    }

    private static func serve(
        _ accepted: EventLoopFuture<Accepted>, session: (@Sendable (ServerSession) async throws -> Void)?
    ) async {
        guard let accepted = try? await accepted.get() else { return }
        switch accepted {
        case .webSocket(let webSocket, let head):
            try? await webSocket.executeThenClose { frames, writer in
                let connection = ServerSession(request: head, channel: webSocket.channel, frames: frames, writer: writer)
                try await session?(connection)
            }
        case .rejected:
            break
        case .silent(let channel):
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        }
    }
}

/// Answers a declined upgrade request with the scripted status and body, then closes.
private final class RejectingResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handshake: @Sendable (HTTPRequestHead) -> TestHandshake
    private var request: HTTPRequestHead?

    init(request: HTTPRequestHead?, handshake: @escaping @Sendable (HTTPRequestHead) -> TestHandshake) {
        self.request = request
        self.handshake = handshake
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let request, case .reject(let status, let body) = handshake(request) else {
                context.close(promise: nil)
                return
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(body.utf8.count)")
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// Writes a canned answer to the first bytes it receives, then closes.
private final class RawResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let response: String
    private var answered = false

    init(response: String) {
        self.response = response
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}
