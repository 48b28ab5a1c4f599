import CoreMetrics
import Logging
import SwitchboardCore

/// Reports what one notifier consumer stream's bounded buffer drops: every drop is counted,
/// each overflow episode is logged and published on the broker as a ``ConsumerOverflowEvent``.
struct OverflowReporter: Sendable {
    let monitor: OverflowMonitor
    let dropped: Counter
    let broker: EventBroker
    let logger: Logger

    func record<Element>(_ result: AsyncStream<Element>.Continuation.YieldResult) {
        if case .dropped = result { dropped.increment() }
        guard let overflow = monitor.record(result) else { return }
        logOverflow(overflow, logger: logger)
        broker.publish(overflow)
    }
}

/// A connection-state or error observer: its continuation and the reporter of its overflows.
struct BufferedContinuation<Element: Sendable>: Sendable {
    let continuation: AsyncStream<Element>.Continuation
    let overflow: OverflowReporter

    init(_ continuation: AsyncStream<Element>.Continuation, overflow: OverflowReporter) {
        self.continuation = continuation
        self.overflow = overflow
    }

    func yield(_ element: Element) {
        overflow.record(continuation.yield(element))
    }

    func finish() {
        continuation.finish()
    }
}
