import Metrics
import SwitchboardCore

extension EventBroker {
    /// A snapshot of what the broker has done since it was created.
    ///
    /// Published counts and dispatch times cover delivered publishes only; events held back for
    /// later delivery are counted when they are delivered.
    public struct MetricsReport: Sendable, Hashable {
        /// Published events per ``SwitchboardEvent/eventName``.
        public var publishedCounts: [String: Int]
        /// How many publishes were dispatched.
        public var dispatchCount: Int
        /// The time spent dispatching, summed over all publishes.
        public var totalDispatchTime: Duration
        /// The longest single dispatch.
        public var maxDispatchTime: Duration
        /// Current type subscribers (handlers and streams) per ``SwitchboardEvent/eventName``.
        public var subscriberCounts: [String: Int]
        /// Current category subscribers (handlers and streams) per category.
        public var categorySubscriberCounts: [EventCategory: Int]
        /// How many dead letters were recorded, including those since evicted from the queue.
        public var deadLetterCount: Int
        /// Events dropped by full stream buffers, per ``SwitchboardEvent/eventName``.
        public var droppedCounts: [String: Int]

        /// All published events.
        public var publishedCount: Int { publishedCounts.values.reduce(0, +) }
        /// All current subscribers.
        public var subscriberCount: Int {
            subscriberCounts.values.reduce(0, +) + categorySubscriberCounts.values.reduce(0, +)
        }
        /// All dropped events.
        public var droppedCount: Int { droppedCounts.values.reduce(0, +) }
        /// The mean dispatch time; zero before the first publish.
        public var meanDispatchTime: Duration {
            dispatchCount == 0 ? .zero : totalDispatchTime / dispatchCount
        }
    }

    /// Returns a snapshot of the broker's counters.
    public func metricsReport() -> MetricsReport {
        state.withLock { state in
            var byEvent: [String: Int] = [:]
            var byCategory: [EventCategory: Int] = [:]
            for scope in state.scopes.values {
                switch scope {
                case .event(_, let name): byEvent[name, default: 0] += 1
                case .category(let category): byCategory[category, default: 0] += 1
                }
            }
            return MetricsReport(
                publishedCounts: state.publishedCounts,
                dispatchCount: state.stats.dispatchCount,
                totalDispatchTime: state.stats.totalDispatchTime,
                maxDispatchTime: state.stats.maxDispatchTime,
                subscriberCounts: byEvent,
                categorySubscriberCounts: byCategory,
                deadLetterCount: state.stats.deadLetters,
                droppedCounts: state.stats.dropped
            )
        }
    }
}

/// The in-process counters behind ``EventBroker/MetricsReport`` (the published counts are kept
/// per event type by ``BrokerState``).
struct BrokerStats {
    var dispatchCount = 0
    var totalDispatchTime: Duration = .zero
    var maxDispatchTime: Duration = .zero
    var deadLetters = 0
    var dropped: [String: Int] = [:]

    mutating func recordDispatch(_ elapsed: Duration) {
        dispatchCount += 1
        totalDispatchTime += elapsed
        maxDispatchTime = max(maxDispatchTime, elapsed)
    }
}

/// The broker's swift-metrics instruments, created lazily per event name and cached.
///
/// Names (with the default prefix): counters `switchboard.broker.published`,
/// `switchboard.broker.dead_letters` and `switchboard.broker.dropped`, and timer
/// `switchboard.broker.dispatch`, all with dimension `event`; gauge `switchboard.broker.subscribers`.
struct BrokerMetrics: Sendable {
    /// The instruments of one event name. A publish needs two; they are looked up together.
    private struct Instruments: Sendable {
        var published: Counter?
        var dispatch: CoreMetrics.Timer?
        var deadLetters: Counter?
        var dropped: Counter?
    }

    private let factory: any MetricsFactory
    private let publishedLabel: String
    private let dispatchLabel: String
    private let deadLettersLabel: String
    private let droppedLabel: String
    private let subscribers: Gauge
    private let instruments = LockedValue<[String: Instruments]>([:])

    init(factory: any MetricsFactory, prefix: String) {
        self.factory = factory
        publishedLabel = "\(prefix).published"
        dispatchLabel = "\(prefix).dispatch"
        deadLettersLabel = "\(prefix).dead_letters"
        droppedLabel = "\(prefix).dropped"
        self.subscribers = Gauge(label: "\(prefix).subscribers", factory: factory)
    }

    /// The counter and timer of one event name's publishes.
    struct PublishInstruments: Sendable {
        let published: Counter
        let dispatch: CoreMetrics.Timer
    }

    /// The instruments of `eventName`'s publishes, made once per name.
    func publishInstruments(_ eventName: String) -> PublishInstruments {
        PublishInstruments(
            published: instrument(\.published, eventName) { Counter(label: publishedLabel, dimensions: $0, factory: factory) },
            dispatch: instrument(\.dispatch, eventName) { CoreMetrics.Timer(label: dispatchLabel, dimensions: $0, factory: factory) })
    }

    func recordDeadLetter(_ eventName: String) {
        instrument(\.deadLetters, eventName) { Counter(label: deadLettersLabel, dimensions: $0, factory: factory) }.increment()
    }

    func recordDropped(_ eventName: String) {
        instrument(\.dropped, eventName) { Counter(label: droppedLabel, dimensions: $0, factory: factory) }.increment()
    }

    func recordSubscriberCount(_ count: Int) {
        subscribers.record(count)
    }

    /// The cached instrument of an event name, made on first use.
    private func instrument<Instrument>(
        _ slot: WritableKeyPath<Instruments, Instrument?>, _ eventName: String,
        make: ([(String, String)]) -> Instrument
    ) -> Instrument {
        if let cached = instruments.withLock({ $0[eventName]?[keyPath: slot] }) { return cached }
        // Made outside the lock: the factory is someone else's code.
        let made = make([("event", eventName)])
        return instruments.withLock { cache in
            if let cached = cache[eventName]?[keyPath: slot] { return cached }
            cache[eventName, default: Instruments()][keyPath: slot] = made
            return made
        }
    }
}
