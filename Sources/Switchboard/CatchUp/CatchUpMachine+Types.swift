import Foundation
import SwitchboardCore
import SwitchboardSync

/// The vocabulary of ``CatchUpMachine``: its settings, what it is told and what it answers.
extension CatchUpMachine {
    /// The setting's numbers the machine decides with.
    struct Settings: Equatable {
        var rememberedDeliveries: Int
        var subscriptionSettleTime: Duration
        var retries: Int
        var retryDelay: Duration
        /// ``BackendNotifier/CatchUp/rememberedDeliveryBytes``.
        var rememberedDeliveryBytes = BackendNotifier.CatchUp.defaultRememberedDeliveryBytes
        /// ``BackendNotifier/CatchUp/caughtUpBytes``.
        var caughtUpBytes = BackendNotifier.CatchUp.defaultCaughtUpBytes
        /// ``BackendNotifier/CatchUp/heldEnvelopeBytes``.
        var heldEnvelopeBytes = BackendNotifier.CatchUp.defaultHeldEnvelopeBytes
    }

    /// What a memory bound of catch-up forgot.
    enum Eviction: String, Equatable, CaseIterable {
        /// Live envelopes held during a catch-up; a new connection and one more catch-up fetch them.
        case heldEnvelopes = "held_envelopes"
        /// Fingerprints of live deliveries (a catch-up could not move the checkpoint past them).
        case rememberedDeliveries = "remembered_deliveries"
        /// Fingerprints of events catch-ups delivered, kept to recognise their live copies.
        case caughtUpFingerprints = "caught_up_fingerprints"
    }

    /// Why a catch-up runs.
    enum Reason: Equatable, CustomStringConvertible {
        case start
        case gap(BackendNotifier.DeliveryGap)
        case rememberedDeliveriesFull
        case heldEnvelopesFull

        var description: String {
            switch self {
            case .start: "start"
            case .gap(let gap): "\(gap)"
            case .rememberedDeliveriesFull: "remembered deliveries full"
            case .heldEnvelopesFull: "held envelopes full"
            }
        }

        /// It follows a (re)connection, so the fetch races the subscriptions being set up.
        var followsConnection: Bool {
            switch self {
            case .start, .gap: true
            case .rememberedDeliveriesFull, .heldEnvelopesFull: false
            }
        }
    }

    /// What the notifier knows of its connection when it asks the machine something.
    struct Readiness: Equatable {
        /// Connected, and no switch of transport is pending.
        var connected: Bool
        /// Every subscription of the current connection is acknowledged (or failed).
        var settled: Bool
        /// The transport acknowledges subscriptions (``EventTransport/acknowledgesSubscriptions``).
        var acknowledgesSubscriptions: Bool
        /// The transport's live events carry the log's time
        /// (``/SwitchboardCore/EventTransport/liveEventsCarryLogTimes``).
        var liveEventsCarryLogTimes = true
    }

    /// One fetch to run.
    struct Order: Equatable {
        var reason: Reason
        /// Where to start when the store holds no checkpoint: the moment the notifier started, on
        /// its ``BackendClock``'s timeline, which the source reads in the backend's time.
        var sessionStart: Duration
        /// How long to let unacknowledged subscriptions settle before reading the log.
        var settle: Duration?
    }

    /// A live envelope held back, with the number of the connection it arrived on.
    struct Held: Equatable {
        var envelope: EventEnvelope
        var connection: Int
    }

    /// What the notifier does next.
    enum Action: Equatable {
        /// Publish a ``DeliveryGapEvent``: receiving again after `gap`.
        case announceGap(BackendNotifier.DeliveryGap)
        /// Start timing acknowledgements; call ``acknowledgementDeadlinePassed(_:readiness:)``
        /// with `wait` once ``BackendNotifier/CatchUp/acknowledgementTimeout`` has passed.
        case timeAcknowledgements(wait: Int)
        /// The acknowledgements did not all come in time: report the unanswered subscriptions.
        case acknowledgementsOverdue
        /// Run a fetch.
        case fetch(Order)
        /// Deliver these held envelopes, in this order.
        case release([Held])
        /// A memory bound forgot `count` entries of `what`: count and log it.
        case evicted(Eviction, count: Int)
        /// Close the connection and make a new one (held envelopes were dropped on it).
        case reconnect
    }

    /// How a fetch that failed goes on.
    enum FailureDecision: Equatable {
        /// Fetch again after `delay`; `attempt` counts from 1 for the first try.
        case retry(after: Duration, attempt: Int)
        /// Give up: the failure is reported and the held events are released.
        case giveUp
    }

    /// How a decoded value reached the notifier.
    enum Route: Equatable {
        /// Live from the transport.
        case live
        /// Fetched from the backend's log, which recorded it at `loggedAt`.
        case caughtUp(loggedAt: Date)
        /// Live, held back during a catch-up; it arrived on connection number `connection`.
        case released(connection: Int)
    }
}
