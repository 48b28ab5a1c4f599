import NIOCore
import NIOWebSocket

/// Holds one connection's pong frames while its output is stalled, so a stall models a dead
/// network path: a client that pings to check the connection gets no answer until the stall
/// ends (the WebSocket library answers pings on its own, past the emulator's outbox).
///
/// Only pongs are held; everything else the connection writes already waits in its
/// ``ConnectionOutbox`` behind the stall. Held pongs go out, in order, when the last stall
/// ends; they are failed if the connection closes first.
struct PongHold: Sendable {
    private let handler: NIOLoopBound<Handler>

    /// Puts the hold into the connection's pipeline, in front of the frame encoder.
    /// - Parameter channel: The upgraded WebSocket channel.
    static func install(on channel: any Channel) async throws -> PongHold {
        try await channel.eventLoop.submit { try installOnEventLoop(channel) }.get()
    }

    /// ``install(on:)`` on the channel's event loop.
    static func installOnEventLoop(_ channel: any Channel) throws -> PongHold {
        let handler = Handler()
        let pipeline = channel.pipeline.syncOperations
        let encoder = try pipeline.context(handlerType: WebSocketFrameEncoder.self)
        try pipeline.addHandler(handler, position: .after(encoder.handler))
        return PongHold(handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
    }

    /// A stall begins: hold pongs from now on. Called when the stall is asked for, so a ping
    /// sent after that is never answered early.
    func begin() {
        let handler = handler
        handler.eventLoop.execute { handler.value.begin() }
    }

    /// A stall ended: once no stall is left, the held pongs go out.
    func end() {
        let handler = handler
        handler.eventLoop.execute { handler.value.end() }
    }

    /// The channel handler; used on its event loop only.
    final class Handler: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        private var stalls = 0
        private var held: [(data: NIOAny, promise: EventLoopPromise<Void>?)] = []
        private var context: ChannelHandlerContext?

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.context = nil
            let held = self.held
            self.held = []
            for item in held { item.promise?.fail(ChannelError.ioOnClosedChannel) }
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if stalls > 0, unwrapOutboundIn(data).opcode == .pong {
                held.append((data, promise))
                return
            }
            context.write(data, promise: promise)
        }

        func begin() { stalls += 1 }

        func end() {
            stalls = max(0, stalls - 1)
            guard stalls == 0, let context, !held.isEmpty else { return }
            let held = self.held
            self.held = []
            for item in held { context.write(item.data, promise: item.promise) }
            context.flush()
        }
    }
}
