import NIOCore
import NIOHTTP1

/// Collects a non-`101` answer to the upgrade request: its head and the start of its body, so
/// the connector can report the status and the server's explanation.
final class HandshakeResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// How much of the body is kept.
    static let bodyLimit = 4096

    let response: EventLoopPromise<(HTTPResponseHead, ByteBuffer)>
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(promise: EventLoopPromise<(HTTPResponseHead, ByteBuffer)>) { self.response = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var part):
            let room = Self.bodyLimit - body.readableBytes
            if room > 0, let bytes = part.readSlice(length: min(room, part.readableBytes)) {
                var bytes = bytes
                body.writeBuffer(&bytes)
            }
        case .end:
            complete()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { complete() }

    private func complete() {
        guard let head else {
            response.fail(ChannelError.ioOnClosedChannel)
            return
        }
        response.succeed((head, body))
        self.head = nil
    }
}
