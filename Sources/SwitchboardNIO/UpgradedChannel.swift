import NIOCore
import NIOWebSocket
import SwitchboardCore

/// An upgraded WebSocket channel whose frames go straight from the channel pipeline to the
/// connection's driver loop: ``FrameHandOff`` yields each decoded frame into the driver's input
/// queue on the event loop, with no task reading in between.
struct UpgradedChannel: Sendable {
    let channel: any Channel
    /// The driver's inputs: frames from the pipeline, commands from the connection's users.
    let inputs: HandOff<DriverInput>
    let inputContinuation: HandOff<DriverInput>.Continuation

    /// Installs the hand-off on a channel the upgrader just switched to WebSocket (on its event
    /// loop, before any frame is read).
    static func install(on channel: any Channel) throws -> UpgradedChannel {
        let (inputs, continuation) = HandOff<DriverInput>.makeStream()
        try channel.pipeline.syncOperations.addHandler(FrameHandOff(inputs: continuation))
        return UpgradedChannel(channel: channel, inputs: inputs, inputContinuation: continuation)
    }

    /// Writes one frame and flushes it.
    func write(_ frame: WebSocketFrame) async throws {
        try await channel.writeAndFlush(frame).get()
    }
}

/// The last inbound handler of a WebSocket channel: hands each frame to the driver's queue, then
/// how the inbound side ended (the channel went inactive, or the decoder failed; after a failure
/// nothing more is read from it).
final class FrameHandOff: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame

    private let inputs: HandOff<DriverInput>.Continuation
    private var ended = false

    init(inputs: HandOff<DriverInput>.Continuation) {
        self.inputs = inputs
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        inputs.yield(.frame(unwrapInboundIn(data)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The driver answers it (a close frame with 1002 or 1009) and closes the channel.
        end(error)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // A server that sends frames right behind its 101 and closes at once: the channel is
        // inactive already, and its `channelInactive` went by before this handler was there.
        // The upgrader forwards the frames it buffered right after this; the end goes behind them.
        guard !context.channel.isActive else { return }
        context.eventLoop.assumeIsolated().execute { self.end(nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !context.channel.isActive { end(nil) }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(nil)
        context.fireChannelInactive()
    }

    private func end(_ error: (any Error)?) {
        guard !ended else { return }
        ended = true
        inputs.yield(.readEnded(error))
    }
}
