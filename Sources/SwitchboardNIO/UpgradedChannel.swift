import NIOCore
import NIOWebSocket
import SwitchboardCore

/// An upgraded WebSocket channel whose frames go straight from the channel pipeline to the
/// connection's driver loop: ``FrameHandOff`` yields each decoded frame into the driver's input
/// queue on the event loop, with no task reading in between, and stops reading the socket
/// while the connection's ``InboundBudget`` is spent.
struct UpgradedChannel: Sendable {
    let channel: any Channel
    /// The driver's inputs: frames from the pipeline, commands from the connection's users.
    let inputs: HandOff<DriverInput>
    let inputContinuation: HandOff<DriverInput>.Continuation
    /// What the connection may hold between its socket and its consumer.
    let budget: InboundBudget

    /// Installs the hand-off on a channel the upgrader just switched to WebSocket (on its event
    /// loop, before any frame is read).
    static func install(on channel: any Channel, budget: InboundBudget) throws -> UpgradedChannel {
        let (inputs, continuation) = HandOff<DriverInput>.makeStream()
        try channel.pipeline.syncOperations.addHandler(FrameHandOff(inputs: continuation, budget: budget))
        return UpgradedChannel(channel: channel, inputs: inputs, inputContinuation: continuation, budget: budget)
    }

    /// Writes one frame and flushes it.
    func write(_ frame: WebSocketFrame) async throws {
        try await channel.writeAndFlush(frame).get()
    }
}

/// The last handler of a WebSocket channel. Inbound, it charges each frame to the connection's
/// budget and hands it to the driver's queue, then how the inbound side ended (the channel went
/// inactive, or the decoder failed; after a failure nothing more is read from it). Outbound, it
/// holds back the reads asked for (by `autoRead` after each read, or by the driver) while the
/// budget is spent, and asks for one when it is half consumed: what the server sends then waits
/// in the kernel's buffers, and TCP's window slows the server down.
final class FrameHandOff: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let inputs: HandOff<DriverInput>.Continuation
    private let budget: InboundBudget
    private var ended = false
    /// A read was asked for while the budget was spent: it is made when the budget allows.
    private var readHeldBack = false

    init(inputs: HandOff<DriverInput>.Continuation, budget: InboundBudget) {
        self.inputs = inputs
        self.budget = budget
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        let frame = unwrapInboundIn(data)
        let charge = budget.charge(frame.length + InboundBudget.perMessageOverhead)
        if case .terminated = inputs.yield(.frame(frame, charge)) { charge.release() }
    }

    func read(context: ChannelHandlerContext) {
        let resume = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let may = budget.mayRead {
            resume.eventLoop.execute { resume.value.handler.budgetAllowsReading(context: resume.value.context) }
        }
        if may {
            context.read()
        } else {
            readHeldBack = true
        }
    }

    /// The budget fell to half: makes the read held back, if the channel still wants one.
    private func budgetAllowsReading(context: ChannelHandlerContext) {
        guard readHeldBack, !ended, context.channel.isActive else { return }
        readHeldBack = false
        read(context: context)
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

    func handlerRemoved(context: ChannelHandlerContext) {
        budget.forgetWaker()
    }

    private func end(_ error: (any Error)?) {
        guard !ended else { return }
        ended = true
        // Nothing more is read: a waker kept for a held-back read would only keep this handler,
        // its context and the channel alive.
        budget.forgetWaker()
        inputs.yield(.readEnded(error))
    }
}
