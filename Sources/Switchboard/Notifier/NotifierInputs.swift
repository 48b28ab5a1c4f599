import Foundation
import SwitchboardCore

extension BackendNotifier {
    /// What the notifier's input loop handles besides the transport's events, which it reads itself.
    enum Input: Sendable {
        case session(Session)
        /// The `run()` of the transport of `generation` returned, and its events are no longer read.
        case transportFinished(generation: UInt64, (any Error)?)
        case consumerEnded(Int)
        case observerEnded(Int)
        /// A caller of `switchTransport(to:)` was cancelled while waiting.
        case switchWaitCancelled(Int)
        /// The network path monitor reported a path.
        case networkPath(NetworkPath)
    }

    /// A transport for the driver task to run, with the generation that tags its events.
    struct TransportSlot: Sendable {
        var generation: UInt64
        var transport: any EventTransport
    }

    enum Lifecycle { case idle, running, shutDown }

    struct Consumer {
        var stream: StreamID
        var subscription: EventSubscription
        var finish: @Sendable () -> Void
    }
}
