import NIOCore

/// Holds back `channelInactive` until the HTTP upgrade has finished.
///
/// NIO removes the HTTP response decoder one event-loop tick after the `101` response. When the
/// server's first frames and its FIN arrive in the same read (a server that sends a message
/// and closes at once), the `channelInactive` of that read would pass the decoder before the
/// removal and the frames behind the `101` would be lost. This handler, first in the pipeline,
/// keeps the event back until the upgrade is complete and the buffered frames have been
/// forwarded to the WebSocket handlers, then lets it through (or, if the connection is still
/// open, leaves the pipeline).
final class UpgradeCloseGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var context: ChannelHandlerContext?
    private var upgradeFinished = false
    private var heldInactive = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        if upgradeFinished {
            context.fireChannelInactive()
        } else {
            heldInactive = true
        }
    }

    /// Releases a held `channelInactive` once `upgrade` completes, or leaves the pipeline if
    /// none was held. Call on the event loop.
    func release<Value>(after upgrade: EventLoopFuture<Value>) {
        upgrade.assumeIsolated().whenComplete { _ in
            self.upgradeFinished = true
            // The upgrade handler forwards its buffered frames right after completing the
            // future, so the event goes out on the next tick, behind them.
            self.context?.eventLoop.assumeIsolated().execute {
                guard let context = self.context else { return }
                if self.heldInactive {
                    self.heldInactive = false
                    context.fireChannelInactive()
                } else {
                    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                }
            }
        }
    }
}
