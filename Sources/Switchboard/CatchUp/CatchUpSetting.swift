import Foundation
import SwitchboardCore
import SwitchboardSync

extension BackendNotifier {
    /// Fetching what was published while the notifier was not receiving, and delivering what
    /// consumers have not seen; off unless set in ``Configuration/catchUp``.
    ///
    /// The notifier catches up after every reconnect and every switch of transport, and when it
    /// first connects (from the checkpoint in ``store``, or from the moment ``run()`` started
    /// when the store holds none). While it catches up, live events are held back; the missed
    /// events are delivered first, in the order they were published, then the held ones, so
    /// each stream stays in publishing order. An event consumers already got live is not
    /// delivered again. See <doc:CatchingUpAfterGaps>.
    public struct CatchUp: Sendable {
        /// Where missed events come from: a `SyncClient` for the backend's sync endpoints.
        public var source: any CatchUpSource
        /// Where the checkpoint is kept between catch-ups (a `FileCheckpointStore` survives
        /// restarts). Keep one store per signed-in user.
        public var store: any CheckpointStore
        /// How many live deliveries are remembered, to recognise them when a catch-up fetches
        /// them again. When more arrive between two gaps, the notifier catches up on its own to
        /// move the checkpoint forward and forgets them.
        public var rememberedDeliveries: Int
        /// The most memory the remembered live deliveries may take, in bytes (each counts as
        /// the size of its payload plus 64). Reaching it starts a catch-up that moves the
        /// checkpoint and forgets them, as ``rememberedDeliveries`` does; nothing is lost. Only
        /// when catch-ups keep failing do they grow further, and at twice this bound the
        /// surplus is forgotten, counted in `switchboard.notifier.catch_up.evicted`
        /// (`kind: remembered_deliveries`): a later catch-up may deliver such an event again.
        /// 2 MiB by default.
        public var rememberedDeliveryBytes: Int
        /// The most memory the fingerprints of caught-up events may take, in bytes (counted as
        /// ``rememberedDeliveryBytes`` counts), for each of the two ways their live copies are
        /// recognised: by timestamp (AppSync Events) and by order on the connection (legacy
        /// GraphQL). Past it the oldest are forgotten, counted in
        /// `switchboard.notifier.catch_up.evicted` (`kind: caught_up_fingerprints`): those of the
        /// catch-up before the last first, and for the legacy transport the oldest. A live copy
        /// of a forgotten event that arrives after it is delivered again. 2 MiB by default.
        public var caughtUpBytes: Int
        /// The most memory live envelopes held back during a catch-up may take, in bytes (the
        /// payload, its parsed index and the envelope's own fields). When the next one would
        /// pass it, it and those held so far are dropped, counted in
        /// `switchboard.notifier.catch_up.evicted` (`kind: held_envelopes`), the notifier makes a
        /// new connection (so that, on the legacy transport, no live copy of a dropped event is
        /// still awaited), and the catch-up runs once more to fetch what they carried from the
        /// log: nothing is lost while the log keeps it and a catch-up succeeds (when one fails,
        /// the next gap's delivers them, as for any failed catch-up). 4 MiB by default.
        public var heldEnvelopeBytes: Int
        /// How long a catch-up after a (re)connection waits, once every subscription was sent,
        /// before it reads the log, when the transport's wire dialect has no per-subscription
        /// acknowledgement (``/SwitchboardCore/EventTransport/acknowledgesSubscriptions`` is false: legacy
        /// `graphql-ws` and `graphql-transport-ws`). An event published before the server has
        /// a subscription in place arrives neither live nor, if the log was read earlier, by the
        /// catch-up until the next gap, out of order; this gives the server time to set the
        /// subscriptions up. 500 ms by default; live events are held meanwhile. A transport that
        /// acknowledges subscriptions and whose live events carry the log's time (AppSync
        /// Events, ``/SwitchboardCore/EventTransport/liveEventsCarryLogTimes``) needs no wait: the
        /// catch-up starts on the acknowledgements. The AppSync GraphQL dialect acknowledges but
        /// carries no time: it waits this long after the acknowledgements, since its live copies
        /// are matched by their fields in log order, and a log read at once can leave an event
        /// logged before the server had the subscription (never live) to be taken for the copy
        /// of a later live one with equal fields (a soak at 300 events/s lost one or two plan and
        /// license events a minute so).
        public var subscriptionSettleTime: Duration
        /// How long a catch-up waits for the server to acknowledge the subscriptions before it
        /// reads the log anyway, with a warning: a subscription the server never answers must
        /// not hold live events back for good. 10 s by default.
        public var acknowledgementTimeout: Duration
        /// How many times a catch-up that fails on a network error or a timeout is tried again
        /// before the failure is reported and the held live events are released: released
        /// early, they would reach consumers before the events still missing, which the next
        /// gap's catch-up delivers. 2 by default; 0 reports the first failure.
        public var retries: Int
        /// The pause before the first retry; it doubles for each one after. 1 s by default.
        public var retryDelay: Duration
        /// The clock ``subscriptionSettleTime``, ``acknowledgementTimeout`` and ``retryDelay``
        /// are measured on.
        public var clock: any Clock<Duration>

        /// ``rememberedDeliveryBytes`` by default: 2 MiB.
        public static let defaultRememberedDeliveryBytes = 2 << 20
        /// ``caughtUpBytes`` by default: 2 MiB.
        public static let defaultCaughtUpBytes = 2 << 20
        /// ``heldEnvelopeBytes`` by default: 4 MiB.
        public static let defaultHeldEnvelopeBytes = 4 << 20

        /// Creates the setting.
        /// - Parameters:
        ///   - source: Where missed events come from.
        ///   - store: Where the checkpoint is kept.
        ///   - rememberedDeliveries: How many live deliveries to remember between catch-ups.
        ///   - rememberedDeliveryBytes: The memory they may take, in bytes; at least 1.
        ///   - caughtUpBytes: The memory the fingerprints of caught-up events may take, in
        ///     bytes; at least 1.
        ///   - heldEnvelopeBytes: The memory envelopes held during a catch-up may take, in
        ///     bytes; at least 1.
        ///   - subscriptionSettleTime: The wait before reading the log on a transport without
        ///     subscription acknowledgements; negative values count as zero.
        ///   - acknowledgementTimeout: The longest wait for acknowledgements; negative values
        ///     count as zero.
        ///   - retries: How many times a catch-up failing on the network is tried again.
        ///   - retryDelay: The pause before the first retry, doubling after.
        ///   - clock: The clock for the waits.
        public init(
            source: any CatchUpSource, store: any CheckpointStore, rememberedDeliveries: Int = 100_000,
            rememberedDeliveryBytes: Int = defaultRememberedDeliveryBytes, caughtUpBytes: Int = defaultCaughtUpBytes,
            heldEnvelopeBytes: Int = defaultHeldEnvelopeBytes,
            subscriptionSettleTime: Duration = .milliseconds(500), acknowledgementTimeout: Duration = .seconds(10),
            retries: Int = 2, retryDelay: Duration = .seconds(1), clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.retries = max(0, retries)
            self.retryDelay = max(.zero, retryDelay)
            self.source = source
            self.store = store
            self.rememberedDeliveries = max(1, rememberedDeliveries)
            self.rememberedDeliveryBytes = max(1, rememberedDeliveryBytes)
            self.caughtUpBytes = max(1, caughtUpBytes)
            self.heldEnvelopeBytes = max(1, heldEnvelopeBytes)
            self.subscriptionSettleTime = max(.zero, subscriptionSettleTime)
            self.acknowledgementTimeout = max(.zero, acknowledgementTimeout)
            self.clock = clock
        }
    }
}
