import HummingbirdCore
import Logging
import NIOCore

/// Answers `404 Not Found` to requests for a path the emulator pretends not to serve, before
/// any HTTP or WebSocket handling.
///
/// hummingbird-websocket answers every refused upgrade with `400`, but a backend without the
/// sync stream answers its upgrade request with `404`, which is what clients key their fallback
/// on. This wraps the server's child channel and reads the request line of each connection
/// first: for a path `isMissing` names, it writes a raw `404` and closes; otherwise it steps
/// aside and passes the bytes on.
struct MissingEndpointGate<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let isMissing: @Sendable (_ path: String) -> Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestLineGate(isMissing: isMissing))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The first handler of a connection: buffers until the request line is complete, then either
/// answers `404` or removes itself and forwards what it buffered.
private final class RequestLineGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let isMissing: @Sendable (String) -> Bool
    private var buffered: ByteBuffer?

    init(isMissing: @escaping @Sendable (String) -> Bool) { self.isMissing = isMissing }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if var buffered = self.buffered {
            buffered.writeBuffer(&bytes)
            bytes = buffered
        }
        let view = bytes.readableBytesView
        guard let lineEnd = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > 8_192 { forward(bytes, context: context) } else { buffered = bytes }
            return
        }
        let line = String(decoding: view[view.startIndex..<lineEnd], as: UTF8.self)
        let parts = line.split(separator: " ")
        if parts.count >= 2, isMissing(String(parts[1].prefix { $0 != "?" })) {
            let response = "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response)))
                .whenComplete { _ in bound.value.close(promise: nil) }
            buffered = nil
            return
        }
        forward(bytes, context: context)
    }

    private func forward(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        buffered = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
