import DequeModule
import Foundation
import Logging
import Metrics
import SwitchboardCore

/// Delivers typed events to in-process subscribers, synchronously, in priority order.
///
/// ``publish(_:metadata:)`` records the event in a bounded history and calls every matching
/// subscriber before it returns: handler subscriptions
/// (``subscribe(_:priority:replay:where:handler:)``, ``subscribe(category:priority:replay:where:handler:)``)
/// are called directly, stream subscriptions (``events(of:priority:replay:where:bufferingPolicy:)``,
/// ``events(in:priority:replay:where:bufferingPolicy:)``) get the event in their buffer.
///
/// - Subscribers are called from ``EventPriority/critical`` down to ``EventPriority/low``, and in
///   subscription order within a priority.
/// - Handlers run on the publishing thread, outside the broker's lock: a handler may publish,
///   subscribe or cancel (a nested publish is dispatched completely before the handler continues).
///   When several threads publish at once, a handler may run on several threads at once.
/// - A handler that throws does not stop delivery to the others; the event and the error go to
///   ``deadLetters``.
///
/// The broker is `Sendable` and not bound to an actor; its state sits behind a lock.
public final class EventBroker: Sendable {
    /// Settings for an ``EventBroker``.
    public struct Configuration: Sendable, Hashable {
        /// How many published records ``EventBroker/history`` keeps (oldest dropped first). Default 100.
        public var historyCapacity: Int
        /// How many dead letters ``EventBroker/deadLetters`` keeps (oldest dropped first). Default 100.
        public var deadLetterCapacity: Int
        /// The prefix of every metric name. Default `switchboard.broker`.
        public var metricsPrefix: String

        /// Creates a configuration.
        /// - Parameters:
        ///   - historyCapacity: Records kept in history; negative values count as zero.
        ///   - deadLetterCapacity: Dead letters kept; negative values count as zero.
        ///   - metricsPrefix: The prefix of metric names, such as `switchboard.broker`.
        public init(historyCapacity: Int = 100, deadLetterCapacity: Int = 100, metricsPrefix: String = "switchboard.broker") {
            self.historyCapacity = max(0, historyCapacity)
            self.deadLetterCapacity = max(0, deadLetterCapacity)
            self.metricsPrefix = metricsPrefix
        }
    }

    /// The configuration the broker was created with.
    public let configuration: Configuration
    let logger: Logger
    let metrics: BrokerMetrics
    let state: LockedValue<BrokerState>
    private let interceptor: (@Sendable (AnyEventRecord) -> Bool)?
    /// Time since the broker was made, for the dispatch-time figures.
    private let elapsed: @Sendable () -> Duration

    /// Creates a broker.
    /// - Parameters:
    ///   - configuration: History and dead-letter capacities, metric names.
    ///   - logger: Where to log: overflowing streams at warning, the rest at trace and debug; nil
    ///     logs nothing.
    ///   - metricsFactory: Where to report metrics; nil uses `MetricsSystem.factory`.
    public convenience init(
        configuration: Configuration = Configuration(),
        logger: Logger? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.init(configuration: configuration, logger: logger, metricsFactory: metricsFactory, interceptor: nil, elapsed: nil)
    }

    /// Creates a broker whose publishes first go through `interceptor`.
    ///
    /// The interceptor sees every published record, outside the lock. When it returns true the
    /// broker does nothing more with the record (no history, metrics or delivery) until someone
    /// passes it to ``deliver(_:)``. Testing support uses this for manual delivery. `elapsed`
    /// measures dispatch times (time since a fixed start); nil reads a `ContinuousClock`.
    package init(
        configuration: Configuration,
        logger: Logger?,
        metricsFactory: (any MetricsFactory)?,
        interceptor: (@Sendable (AnyEventRecord) -> Bool)?,
        elapsed: (@Sendable () -> Duration)? = nil
    ) {
        self.configuration = configuration
        self.logger = logger ?? Logger(label: "switchboard.broker", factory: { _ in SwiftLogNoOpLogHandler() })
        self.metrics = BrokerMetrics(factory: metricsFactory ?? MetricsSystem.factory, prefix: configuration.metricsPrefix)
        self.state = LockedValue(BrokerState())
        self.interceptor = interceptor
        self.elapsed = elapsed ?? Self.continuousElapsed()
    }

    /// The injection default of `elapsed`: a `ContinuousClock` read without an existential.
    private static func continuousElapsed() -> @Sendable () -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Publishes an event: records it in history and calls every matching subscriber before returning.
    /// - Parameters:
    ///   - event: The event.
    ///   - metadata: Its metadata; a new id and the current time by default.
    public func publish<E: SwitchboardEvent>(_ event: E, metadata: EventMetadata = EventMetadata()) {
        let record = AnyEventRecord(metadata: metadata, event: event)
        if let interceptor, interceptor(record) {
            logger.trace("Held event for later delivery", metadata: record.logMetadata)
            return
        }
        dispatch(record)
    }

    /// Delivers a record that the interceptor held back, exactly as ``publish(_:metadata:)`` would.
    package func deliver(_ record: AnyEventRecord) {
        dispatch(record)
    }

    /// The most recent published records, oldest first, at most ``Configuration/historyCapacity``.
    public var history: [AnyEventRecord] {
        state.withLock { Array($0.history) }
    }

    /// The most recent dead letters, oldest first, at most ``Configuration/deadLetterCapacity``.
    public var deadLetters: [DeadLetter] {
        state.withLock { Array($0.deadLetters) }
    }

    /// Drops every record of ``history`` and ``deadLetters`` (a memory warning); new ones are kept
    /// as before.
    /// - Returns: How many records each held.
    @discardableResult
    public func discardHistory() -> (history: Int, deadLetters: Int) {
        state.withLock { $0.discardHistory() }
    }

    /// Records a payload that never became an event, for example because it could not be decoded.
    /// - Parameters:
    ///   - payload: The raw payload.
    ///   - eventName: The name of the event the payload was meant to be.
    ///   - error: Why it could not be delivered, usually ``/SwitchboardCore/SwitchboardError/Code/decodingFailed``.
    ///   - metadata: The metadata the payload arrived with.
    public func reportUndeliverable(
        payload: Data,
        eventName: String,
        error: SwitchboardError,
        metadata: EventMetadata = EventMetadata()
    ) {
        var outcomes = DeliveryOutcomes()
        outcomes.deadLetters.append(DeadLetter(metadata: metadata, eventName: eventName, payload: payload, error: error))
        commit(outcomes)
    }

    private func dispatch(_ record: AnyEventRecord) {
        let start = elapsed()
        let (targets, cached) = state.withLock { $0.accept(record, historyCapacity: configuration.historyCapacity) }
        var outcomes = DeliveryOutcomes()
        for (position, subscriber) in targets.enumerated() {
            // The first target was subscribed when the lock was let go a moment ago; a later one
            // may have been cancelled by a handler called before it.
            deliver(record, to: subscriber, filtering: true, checkSubscribed: position > 0, into: &outcomes)
        }
        let dispatchTime = elapsed() - start
        let instruments = cached ?? makeInstruments(for: record)
        instruments.published.increment()
        instruments.dispatch.record(duration: dispatchTime)
        logger.trace(
            "Dispatched event",
            metadata: record.logMetadata.merging(["switchboard.subscriber.count": "\(targets.count)"]) { $1 }
        )
        commit(outcomes, dispatchTime: dispatchTime)
    }

    /// The metric instruments of `record`'s event type, made on its first publish (outside the
    /// lock: the factory is someone else's code) and kept with the type's count.
    private func makeInstruments(for record: AnyEventRecord) -> BrokerMetrics.PublishInstruments {
        let instruments = metrics.publishInstruments(record.eventName)
        state.withLock { $0.setInstruments(instruments, for: record) }
        return instruments
    }

    /// Calls one subscriber for one record, unless it was cancelled meanwhile (checked when
    /// `checkSubscribed`) or, when `filtering`, its filter rejects the record. Must be called
    /// without holding the lock.
    func deliver(
        _ record: AnyEventRecord, to subscriber: Subscriber, filtering: Bool, checkSubscribed: Bool = true,
        into outcomes: inout DeliveryOutcomes
    ) {
        if checkSubscribed, !isSubscribed(subscriber.id) { return }
        switch subscriber.receive(record, filtering) {
        case .delivered, .terminated:
            break
        case .dropped(let eventName, let overflow):
            outcomes.dropped.append(eventName)
            if let overflow { outcomes.overflows.append(overflow) }
        case .caughtUp(let overflow):
            outcomes.overflows.append(overflow)
        case .failed(let error):
            logger.debug(
                "Subscriber failed to handle event",
                metadata: record.logMetadata.merging([
                    "switchboard.subscription.id": "\(subscriber.id)",
                    "switchboard.error": "\(error)",
                ]) { $1 }
            )
            outcomes.deadLetters.append(
                DeadLetter(metadata: record.metadata, eventName: record.eventName, event: record.event, error: error)
            )
        }
    }

    /// Stores dead letters and drop counts gathered outside the lock, then reports them.
    func commit(_ outcomes: DeliveryOutcomes, dispatchTime: Duration? = nil) {
        if outcomes.isEmpty {
            if let dispatchTime { state.withLock { $0.stats.recordDispatch(dispatchTime) } }
            return
        }
        state.withLock { state in
            if let dispatchTime { state.stats.recordDispatch(dispatchTime) }
            state.appendDeadLetters(outcomes.deadLetters, capacity: configuration.deadLetterCapacity)
            for eventName in outcomes.dropped {
                state.stats.dropped[eventName, default: 0] += 1
            }
        }
        for letter in outcomes.deadLetters {
            metrics.recordDeadLetter(letter.eventName)
        }
        for eventName in outcomes.dropped {
            metrics.recordDropped(eventName)
        }
        for overflow in outcomes.overflows {
            logOverflow(overflow, logger: logger)
            publish(overflow)
        }
    }
}

/// Dead letters and drops collected while delivering, committed in one step afterwards.
struct DeliveryOutcomes {
    var deadLetters: [DeadLetter] = []
    var dropped: [String] = []
    /// Overflow episodes that began or ended, published once the rest is committed.
    var overflows: [ConsumerOverflowEvent] = []

    var isEmpty: Bool { deadLetters.isEmpty && dropped.isEmpty && overflows.isEmpty }
}

/// Logs an overflow episode of a consumer stream: a warning when it begins, a notice when it ends.
func logOverflow(_ overflow: ConsumerOverflowEvent, logger: Logger) {
    let metadata: Logger.Metadata = [
        "switchboard.stream": "\(overflow.stream)", "switchboard.buffering": "\(overflow.policy)",
        "switchboard.dropped": "\(overflow.dropped)",
    ]
    switch overflow.phase {
    case .began:
        logger.warning("a consumer is too slow: its stream buffer is full and values are being dropped", metadata: metadata)
    case .ended:
        logger.notice("a slow consumer caught up; values were dropped", metadata: metadata)
    }
}

extension AnyEventRecord {
    var logMetadata: Logger.Metadata {
        ["switchboard.event": "\(eventName)", "switchboard.event.id": "\(metadata.eventId)"]
    }
}
