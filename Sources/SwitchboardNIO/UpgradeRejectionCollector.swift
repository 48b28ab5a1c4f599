import NIOCore
import NIOHTTP1

/// The answer of a server that refused the upgrade: its status and the start of its body.
struct UpgradeRejection: Sendable, Hashable {
    var status: Int
    var body: String
}

/// Collects a non-`101` answer to the upgrade request: the status and at most
/// ``bodyLimit`` bytes of the body. It completes at the end of the response, once the limit is
/// reached, or when the connection closes, whichever is first.
final class UpgradeRejectionCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// How much of the body is kept.
    static let bodyLimit = 4096

    private let promise: EventLoopPromise<UpgradeRejection>
    private var status: Int?
    private var body: ByteBuffer?
    private var completed = false

    /// The rejection, once collected.
    var rejection: EventLoopFuture<UpgradeRejection> { promise.futureResult }

    init(eventLoop: any EventLoop) {
        promise = eventLoop.makePromise(of: UpgradeRejection.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !completed else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(var part):
            let room = Self.bodyLimit - (body?.readableBytes ?? 0)
            if let slice = part.readSlice(length: min(room, part.readableBytes)) {
                body.setOrWriteImmutableBuffer(slice)
            }
            if (body?.readableBytes ?? 0) >= Self.bodyLimit { complete() }
        case .end:
            complete()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete()
        context.fireErrorCaught(error)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        complete()
    }

    private func complete() {
        guard !completed else { return }
        completed = true
        if let status {
            promise.succeed(UpgradeRejection(status: status, body: body.map { String(buffer: $0) } ?? ""))
        } else {
            promise.fail(ChannelError.eof)
        }
    }
}
