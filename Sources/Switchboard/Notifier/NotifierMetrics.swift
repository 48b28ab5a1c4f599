import CoreMetrics
import SwitchboardCore

/// The counters of catching up after gaps.
struct CatchUpMetrics: Sendable {
    /// The counter of what a memory bound forgot of `kind`.
    func evicted(_ kind: CatchUpMachine.Eviction) -> Counter { evictions[kind]! }

    /// Missed events delivered by a catch-up.
    let delivered: Counter
    /// Events a catch-up fetched that consumers had already got live, or that arrived live
    /// while it ran; not delivered again.
    let duplicates: Counter
    /// Catch-ups that failed (reported on `errors()`); the next gap tries again.
    let failures: Counter
    /// Attempts that failed on a network error or a timeout and were tried again, live events
    /// still held.
    let retries: Counter
    /// What catch-up's memory bounds forgot, by kind (``CatchUpMachine/Eviction``).
    private let evictions: [CatchUpMachine.Eviction: Counter]

    init(factory: any MetricsFactory) {
        delivered = Counter(label: "switchboard.notifier.catch_up.delivered", factory: factory)
        duplicates = Counter(label: "switchboard.notifier.catch_up.duplicates", factory: factory)
        failures = Counter(label: "switchboard.notifier.catch_up.failures", factory: factory)
        retries = Counter(label: "switchboard.notifier.catch_up.retries", factory: factory)
        evictions = Dictionary(uniqueKeysWithValues: CatchUpMachine.Eviction.allCases.map {
            ($0, Counter(label: "switchboard.notifier.catch_up.evicted", dimensions: [("kind", $0.rawValue)], factory: factory))
        })
    }
}

/// The notifier's counters, with dotted names and the transport as a dimension.
///
/// A live switch of transport makes a new value for the new transport, so every counter carries
/// the transport that produced what it counts.
struct NotifierMetrics: Sendable {
    /// Typed values published to the broker.
    let delivered: Counter
    /// Payloads that could not be decoded (also dead-lettered on the broker).
    let decodingFailures: Counter
    /// Events dropped by the ``EventFilter``.
    let filtered: Counter
    /// Events no requested stream takes (an unknown `eventType`, or a subscription being retired).
    let unrouted: Counter
    /// Errors reported to consumers.
    let errors: Counter
    /// Events that arrived from this transport after a switch to another one had begun; dropped
    /// so that nothing is delivered twice across the switch.
    let staleEvents: Counter

    private let factory: any MetricsFactory

    init(factory: any MetricsFactory, transport: TransportKind) {
        self.factory = factory
        let dimensions = [("transport", transport.rawValue)]
        delivered = Counter(label: "switchboard.notifier.delivered", dimensions: dimensions, factory: factory)
        decodingFailures = Counter(label: "switchboard.notifier.decoding_failures", dimensions: dimensions, factory: factory)
        filtered = Counter(label: "switchboard.notifier.filtered", dimensions: dimensions, factory: factory)
        unrouted = Counter(label: "switchboard.notifier.unrouted", dimensions: dimensions, factory: factory)
        errors = Counter(label: "switchboard.notifier.errors", dimensions: dimensions, factory: factory)
        staleEvents = Counter(label: "switchboard.notifier.stale_events", dimensions: dimensions, factory: factory)
    }

    /// The counters for `transport`, reporting to the same factory.
    func forTransport(_ transport: TransportKind) -> NotifierMetrics {
        NotifierMetrics(factory: factory, transport: transport)
    }

    /// The counter of values a full consumer-stream buffer dropped, for the stream `stream`.
    /// It has no transport dimension: a stream outlives switches of transport.
    func consumerDropped(stream: String) -> Counter {
        Counter(label: "switchboard.notifier.consumer_dropped", dimensions: [("stream", stream)], factory: factory)
    }

    /// Counts one completed switch of transport.
    func countSwitch(from: TransportKind, to: TransportKind) {
        Counter(
            label: "switchboard.notifier.transport_switches",
            dimensions: [("from", from.rawValue), ("to", to.rawValue)], factory: factory
        ).increment()
    }

    /// Counts one switch that was refused (factory failure, wrong kind, no factory).
    func countRefusedSwitch(to: TransportKind) {
        Counter(
            label: "switchboard.notifier.transport_switch_failures", dimensions: [("to", to.rawValue)], factory: factory
        ).increment()
    }
}
