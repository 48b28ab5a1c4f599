import CoreMetrics
import SwitchboardCore

/// The notifier's counters, with dotted names and the transport as a dimension.
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

    init(factory: any MetricsFactory, transport: TransportKind) {
        let dimensions = [("transport", transport.rawValue)]
        delivered = Counter(label: "switchboard.notifier.delivered", dimensions: dimensions, factory: factory)
        decodingFailures = Counter(label: "switchboard.notifier.decoding_failures", dimensions: dimensions, factory: factory)
        filtered = Counter(label: "switchboard.notifier.filtered", dimensions: dimensions, factory: factory)
        unrouted = Counter(label: "switchboard.notifier.unrouted", dimensions: dimensions, factory: factory)
        errors = Counter(label: "switchboard.notifier.errors", dimensions: dimensions, factory: factory)
    }
}
