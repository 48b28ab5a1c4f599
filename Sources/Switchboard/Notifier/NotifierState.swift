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

    /// The notifier's switch of transport: it swaps `any EventTransport`s, and its callers wait
    /// on continuations.
    typealias Switching = TransportSwitch<any EventTransport, CheckedContinuation<Void, any Error>>

    /// Why events may have been missed between two connections.
    enum DeliveryGap: Equatable, CustomStringConvertible {
        /// The connection was lost and has been made again.
        case reconnected
        /// The transport was switched; nothing was received between the old transport's stop and
        /// the new one's subscriptions.
        case transportSwitched(from: TransportKind, to: TransportKind)

        var description: String {
            switch self {
            case .reconnected: "reconnected"
            case .transportSwitched(let from, let to): "transportSwitched(\(from) -> \(to))"
            }
        }
    }
}
