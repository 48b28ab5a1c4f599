import NIOCore
import NIOHTTP1
import NIOWebSocket

/// What the upgrade request led to.
enum UpgradeOutcome: Sendable {
    /// `101`: the channel speaks WebSocket now.
    case upgraded(UpgradedChannel, HTTPResponseHead)
    /// Any other status: the rejection, once its body has been read.
    case rejected(EventLoopFuture<UpgradeRejection>)
}
