import NIOCore
import NIOWebSocket
import SwitchboardCore

/// An upgraded WebSocket channel whose protocol runs in its last handler
/// (``WebSocketConnectionHandler``), on the event loop: frames go from the pipeline through the
/// state machine straight into ``inbound``, and the users' commands hop onto the event loop to
/// reach the handler. No task and no queue of its own per connection.
struct UpgradedChannel: Sendable {
    let channel: any Channel
    /// The protocol handler; touched on the channel's event loop only.
    let handler: NIOLoopBound<WebSocketConnectionHandler>
    /// What arrives on the socket; fed by the handler once ``start()`` ran.
    let inbound: WebSocketInbound
    /// What the connection may hold between its socket and its consumer.
    let budget: InboundBudget

    /// Installs the protocol handler on a channel the upgrader just switched to WebSocket (on its
    /// event loop, before any frame is read).
    static func install(
        on channel: any Channel, budget: InboundBudget, settings: WebSocketConnectionHandler.Settings
    ) throws -> UpgradedChannel {
        let (inbound, events) = WebSocketInbound.makeStream()
        let handler = WebSocketConnectionHandler(settings: settings, budget: budget, events: events, eventLoop: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(handler)
        return UpgradedChannel(
            channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop), inbound: inbound, budget: budget)
    }

    /// Hands the connection to its user: the handler handles what arrived so far and reads on.
    func start() {
        onEventLoop { $0.start() }
    }

    /// Runs `body` with the handler on the event loop, always in a task of its own there (never
    /// inline, even when called on the loop): a connection released by a consumer the handler is
    /// yielding to must not step into the handler halfway through an action.
    func onEventLoop(_ body: @escaping @Sendable (WebSocketConnectionHandler) -> Void) {
        let handler = handler
        handler.eventLoop.execute { body(handler.value) }
    }

    /// Throws when the channel is closed, before a command hops onto its event loop: when the
    /// user shuts down the event loop group a connection runs on, NIO closes its channels and
    /// then drops whatever is submitted to the loops, so a command that hopped would wait
    /// forever. (`isActive` may be read from any thread; a group shut down between this check
    /// and the hop still loses the command.)
    func checkLoopAlive() throws {
        guard channel.isActive else {
            throw SwitchboardError(code: .network, message: "the connection is closed")
        }
    }

    /// Writes one frame and flushes it (for a channel the connector refuses before it starts).
    func write(_ frame: WebSocketFrame) async throws {
        try await channel.writeAndFlush(frame).get()
    }
}
