import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import SwitchboardCore

/// What the test server saw.
struct ServerLog: Sendable {
    /// The upgrade requests' headers, in arrival order.
    var upgradeHeaders: [[(name: String, value: String)]] = []
    /// Every data frame from the client: was it masked, and its text.
    var frames: [(masked: Bool, text: String)] = []
    /// Close frames from the client: code and reason.
    var clientCloses: [WebSocketClose] = []
    /// Pong payloads received from the client.
    var pongs: [String] = []
}

/// A small WebSocket server on 127.0.0.1, port 0, written for these tests on raw NIO. The
/// client drives it with text commands (see ``ServerFrameHandler``); the path of the upgrade
/// request picks the handshake behaviour:
/// - `/reject`: answers `401` with a JSON body;
/// - `?choose=none` / `?choose=NAME`: chooses no subprotocol / NAME (default: the first offered).
final class TestWebSocketServer: Sendable {
    let port: Int
    private let log: LockedValue<ServerLog>
    private let channel: any Channel

    private init(port: Int, channel: any Channel, log: LockedValue<ServerLog>) {
        self.port = port
        self.channel = channel
        self.log = log
    }

    static func start(tls: NIOSSLContext? = nil) async throws -> TestWebSocketServer {
        let log = LockedValue(ServerLog())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                }.flatMap {
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: 1 << 24,
                        shouldUpgrade: { channel, head in
                            log.withLock { $0.upgradeHeaders.append(head.headers.map { ($0.name, $0.value) }) }
                            return channel.eventLoop.makeSucceededFuture(Self.upgradeHeaders(for: head))
                        },
                        upgradePipelineHandler: { channel, _ in
                            // The HTTP fallback must not see WebSocket bytes.
                            channel.pipeline.removeHandler(name: "reject").flatMapThrowing {
                                try channel.pipeline.syncOperations.addHandler(ServerFrameHandler(log: log))
                            }
                        })
                    return channel.pipeline.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                    ).flatMapThrowing { try channel.pipeline.syncOperations.addHandler(RejectingHTTPHandler(), name: "reject") }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestWebSocketServer(port: channel.localAddress?.port ?? 0, channel: channel, log: log)
    }

    var seen: ServerLog { log.withLock { $0 } }

    func url(_ path: String = "/", secure: Bool = false) -> URL {
        URL(string: "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)")!
    }

    func stop() async { try? await channel.close() }

    private static func upgradeHeaders(for head: HTTPRequestHead) -> HTTPHeaders? {
        let components = URLComponents(string: head.uri)
        if components?.path == "/reject" { return nil }
        let offered = head.headers["Sec-WebSocket-Protocol"]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let choice = components?.queryItems?.first { $0.name == "choose" }?.value
        var headers = HTTPHeaders()
        switch choice {
        case "none": break
        case let name?: headers.add(name: "Sec-WebSocket-Protocol", value: name)
        case nil: if let first = offered.first { headers.add(name: "Sec-WebSocket-Protocol", value: first) }
        }
        return headers
    }
}

/// Answers any request that was not upgraded with `401` and a JSON body.
final class RejectingHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let body = #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "\(Self.body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .unauthorized, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: Self.body)))), promise: nil)
        let bound = context.loopBound
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}

/// The server side of an upgraded connection: records what the client sends and obeys text
/// commands (`echo:X`, `fragments`, `ping:P`, `close:CODE:REASON`, `close-drop:CODE`, `drop`,
/// `big:N`, `bigfragments:N:PARTS`, `invalid-utf8`, `blast:N`, `binary`).
final class ServerFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let log: LockedValue<ServerLog>
    private var closeSent = false

    init(log: LockedValue<ServerLog>) { self.log = log }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        var payload = frame.unmaskedData
        let text = payload.readString(length: payload.readableBytes) ?? ""
        switch frame.opcode {
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self) ?? 1005
            let reason = data.readString(length: data.readableBytes) ?? ""
            log.withLock { $0.clientCloses.append(WebSocketClose(code: WebSocketCloseCode(code), reason: reason)) }
            if !closeSent { send(.connectionClose, Self.closePayload(code, reason), context: context) }
            close(context)
        case .ping:
            send(.pong, frame.unmaskedData, context: context)
        case .pong:
            log.withLock { $0.pongs.append(text) }
        case .text, .binary:
            log.withLock { $0.frames.append((frame.maskKey != nil, text)) }
            run(text, context: context)
        default:
            break
        }
    }

    private func run(_ command: String, context: ChannelHandlerContext) {
        let parts = command.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        switch parts[0] {
        case "echo":
            send(.text, ByteBuffer(string: parts.dropFirst().joined(separator: ":")), context: context)
        case "fragments":
            send(.text, ByteBuffer(string: "hel"), fin: false, context: context)
            send(.ping, ByteBuffer(string: "mid"), context: context)
            send(.continuation, ByteBuffer(string: "lo "), fin: false, context: context)
            send(.continuation, ByteBuffer(string: "wörld"), context: context)
        case "ping":
            send(.ping, ByteBuffer(string: parts[1]), context: context)
        case "close":
            closeSent = true
            send(.connectionClose, Self.closePayload(UInt16(parts[1]) ?? 1000, parts.count > 2 ? parts[2] : ""), context: context)
        case "close-drop":
            closeSent = true
            send(.connectionClose, Self.closePayload(UInt16(parts[1]) ?? 1000, "bye"), context: context)
            close(context)
        case "drop":
            close(context)
        case "big":
            send(.text, ByteBuffer(repeating: UInt8(ascii: "a"), count: Int(parts[1]) ?? 0), context: context)
        case "bigfragments":
            let total = Int(parts[1]) ?? 0
            let count = Int(parts[2]) ?? 1
            for index in 0..<count {
                let opcode: WebSocketOpcode = index == 0 ? .text : .continuation
                send(opcode, ByteBuffer(repeating: UInt8(ascii: "b"), count: total / count), fin: index == count - 1, context: context)
            }
        case "invalid-utf8":
            send(.text, ByteBuffer(bytes: [0xC3, 0x28]), context: context)
        case "blast":
            for index in 0..<(Int(parts[1]) ?? 0) { send(.text, ByteBuffer(string: "\(index)"), flush: false, context: context) }
            context.flush()
        case "binary":
            send(.binary, ByteBuffer(bytes: [1, 2, 3]), context: context)
        default:
            break
        }
    }

    private func send(
        _ opcode: WebSocketOpcode, _ data: ByteBuffer, fin: Bool = true, flush: Bool = true, context: ChannelHandlerContext
    ) {
        let frame = WebSocketFrame(fin: fin, opcode: opcode, data: data)
        if flush { context.writeAndFlush(wrapOutboundOut(frame), promise: nil) } else { context.write(wrapOutboundOut(frame), promise: nil) }
    }

    private func close(_ context: ChannelHandlerContext) {
        let bound = context.loopBound
        context.flush()
        context.eventLoop.execute { bound.value.close(promise: nil) }
    }

    private static func closePayload(_ code: UInt16, _ reason: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(code)
        buffer.writeString(reason)
        return buffer
    }
}
