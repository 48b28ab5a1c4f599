import Logging
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// The WebSocket protocol of one client connection, on the channel's event loop: the last
/// handler of an upgraded channel.
///
/// Inbound, it charges each frame to the connection's ``InboundBudget``, feeds it to the pure
/// ``WebSocketStateMachine`` and carries out what the machine decides on the spot: a complete
/// message goes straight into the connection's ``WebSocketInbound`` with its charge, a ping is
/// answered, a close frame ends the connection. No task and no queue stand between the socket and
/// the consumer's sequence, and one thread (the event loop) does all the writing, so frames never
/// interleave and nothing is sent after the close frame.
///
/// Outbound, it holds back the reads asked for (by `autoRead` after each read, or by ``start()``)
/// while the budget is spent, and asks for one when it is half consumed: what the server sends
/// then waits in the kernel's buffers, and TCP's window slows the server down.
///
/// The connection's users reach it by hopping onto the event loop (``NIOWebSocketConnection``
/// holds it in a `NIOLoopBound`); the close deadline sleeps on the injected clock in a task of
/// its own and hops back to fire.
final class WebSocketConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the handler needs from the connector's configuration.
    struct Settings: Sendable {
        var maximumMessageSize: Int
        var maximumFrameSize: Int
        var closeTimeout: Duration
        var clock: any Clock<Duration>
        var logger: Logger
    }

    /// What the socket delivered before the connector decided to keep the connection.
    private enum Arrival {
        case frame(WebSocketFrame, InboundCharge)
        case ended((any Error)?)
    }

    static let closedError = SwitchboardError(code: .network, message: "the WebSocket is closed")

    let settings: Settings
    let budget: InboundBudget
    let events: WebSocketInbound.Continuation
    let eventLoop: any EventLoop
    private let stopwatch: Stopwatch
    private var context: ChannelHandlerContext?

    var machine: WebSocketStateMachine
    var pings = PendingPings()
    /// The budget charges of a fragmented message's frames read so far (set aside: they do not
    /// stop reading, the message size limit bounds them).
    var assembling = InboundCharge.none
    /// The charge of the frame being handled, for the message it completes; released if it
    /// completes none.
    var pendingCharge = InboundCharge.none
    /// The close deadline, sleeping while the close handshake runs.
    var closeTimer: Task<Void, Never>?

    /// Whether ``start()`` ran: until then, what arrives is kept in `early`.
    private var started = false
    /// Frames (and the end) that arrived before ``start()``: the upgrader forwards the frames the
    /// server sent right behind its 101 before the connector has checked the response, and a
    /// connection it refuses must not have answered them.
    private var early: [Arrival] = []
    /// The connection is over (the machine finished): the channel is closing or closed.
    var isOver = false
    /// The socket's inbound side ended: nothing more is handled from it.
    private var readEnded = false
    /// A read was asked for while the budget was spent: it is made when the budget allows.
    private var readHeldBack = false

    init(settings: Settings, budget: InboundBudget, events: WebSocketInbound.Continuation, eventLoop: any EventLoop) {
        self.settings = settings
        self.budget = budget
        self.events = events
        self.eventLoop = eventLoop
        stopwatch = Stopwatch(settings.clock)
        machine = WebSocketStateMachine(maximumMessageSize: settings.maximumMessageSize)
    }

    /// The connection is handed to its user: handles what arrived so far, then reads on.
    func start() {
        guard !started else { return }
        started = true
        let arrivals = early
        early = []
        for arrival in arrivals {
            switch arrival {
            case .frame(let frame, let charge): handle(frame, charge: charge)
            case .ended(let error): handleEnd(error)
            }
        }
        // The upgrade handler holds back the reads asked for while it upgraded; reading resumes
        // here (autoRead keeps it going from now on).
        if let context { read(context: context) }
    }

    // MARK: Pipeline

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // A server that sends frames right behind its 101 and closes at once: the channel is
        // inactive already, and its `channelInactive` went by before this handler was there.
        // The upgrader forwards the frames it buffered right after this; the end goes behind them.
        guard !context.channel.isActive else { return }
        context.eventLoop.assumeIsolated().execute { self.end(nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        budget.forgetWaker()
        // What arrived before ``start()`` stays: a server that sends and drops at once closes the
        // channel (and removes its handlers) before the connector hands the connection out.
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !readEnded else { return }
        let frame = unwrapInboundIn(data)
        let charge = budget.charge(frame.length + InboundBudget.perMessageOverhead)
        guard started else {
            early.append(.frame(frame, charge))
            return
        }
        handle(frame, charge: charge)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The machine answers it (a close frame with 1002 or 1009) and the channel is closed.
        end(error)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !context.channel.isActive { end(nil) }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(nil)
        context.fireChannelInactive()
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
        guard readHeldBack, !readEnded, context.channel.isActive else { return }
        readHeldBack = false
        read(context: context)
    }

    /// The inbound side ended (the channel went inactive, or the decoder failed; after a failure
    /// nothing more is read from it).
    private func end(_ error: (any Error)?) {
        guard !readEnded else { return }
        readEnded = true
        // Nothing more is read: a waker kept for a held-back read would only keep this handler,
        // its context and the channel alive.
        budget.forgetWaker()
        guard started else {
            early.append(.ended(error))
            return
        }
        handleEnd(error)
    }

    // MARK: Writing

    /// Writes one frame, masked with a fresh random key (RFC 6455 §5.3), and flushes it.
    func write(_ frame: OutboundFrame) -> EventLoopFuture<Void> {
        settings.logger.trace("frame out", metadata: [
            "switchboard.websocket.opcode": "\(frame.opcode)", "switchboard.websocket.bytes": "\(frame.payload.readableBytes)",
        ])
        guard let context else { return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        let masked = WebSocketFrame(fin: true, opcode: frame.opcode, maskKey: .random(), data: frame.payload)
        return context.writeAndFlush(wrapOutboundOut(masked))
    }

    /// Closes the channel, once `after` (the last frame written, if any) is done.
    func closeChannel(after written: EventLoopFuture<Void>?) {
        guard let channel = context?.channel else { return }
        let logger = settings.logger
        let close: @Sendable () -> Void = {
            channel.close().whenComplete { result in
                // Already closed: by the peer, or by a failed write.
                if case .failure(let error) = result, (error as? ChannelError) != .alreadyClosed {
                    logger.debug("closing the channel failed", metadata: ["switchboard.error": "\(error)"])
                }
                logger.debug("channel closed")
            }
        }
        // The server may be gone already (it may close TCP right after its close frame): the
        // channel closes whatever became of the write.
        if let written { written.whenComplete { _ in close() } } else { close() }
    }

    /// Starts the close deadline: a task sleeps on the injected clock, then hops back here.
    func startCloseTimer() {
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        let settings = settings
        closeTimer = Task {
            do {
                try await settings.clock.sleep(for: settings.closeTimeout)
            } catch {
                return  // Cancelled: the connection ended first.
            }
            handler.eventLoop.execute { handler.value.closeTimerFired() }
        }
    }

    /// The time since the connection started, on the injected clock (for ping round trips).
    var elapsed: Duration { stopwatch.elapsed() }
}
