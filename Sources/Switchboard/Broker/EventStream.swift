/// An asynchronous sequence of events from one ``EventBroker`` subscription.
///
/// Each call to ``EventBroker/events(of:priority:replay:where:bufferingPolicy:)`` or
/// ``EventBroker/events(in:priority:replay:where:bufferingPolicy:)`` returns its own stream with
/// its own buffer; a stream is meant for a single consumer. When the consumer stops (its task is
/// cancelled, or the stream and its iterator are released) the subscription is removed.
/// The sequence never finishes on its own while the consumer keeps iterating.
public struct EventStream<Element: Sendable>: AsyncSequence, Sendable {
    private let base: AsyncStream<Element>

    init(_ base: AsyncStream<Element>) {
        self.base = base
    }

    /// Creates the iterator. Create only one per stream.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator())
    }

    /// The iterator of an ``EventStream``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var base: AsyncStream<Element>.Iterator

        init(base: AsyncStream<Element>.Iterator) {
            self.base = base
        }

        /// Waits for the next event; returns nil once the task is cancelled.
        public mutating func next() async -> Element? {
            await base.next()
        }
    }
}

/// What a consumer stream does when values arrive faster than its consumer takes them.
///
/// Every stream is bounded by default (``standard``: the newest 10,000 values). A full buffer
/// drops values instead of growing without limit; each drop is counted (the broker's `dropped`
/// metric and ``EventBroker/MetricsReport/droppedCounts`` for ``EventStream``s,
/// `switchboard.notifier.consumer_dropped` for ``BackendNotifier`` streams) and each overflow
/// episode is reported as a ``ConsumerOverflowEvent`` on the broker.
public struct EventStreamBufferingPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case unbounded
        case newest(Int)
        case oldest(Int)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The default of every consumer stream: keep the newest 10,000 values, dropping the oldest
    /// when full. A buffered device presence value holds about 400 bytes, so this bounds a stuck
    /// consumer's buffer to about 4 MB per stream, and leaves room for a catch-up's burst of
    /// missed events. On a phone, choose a smaller bound for a consumer that can stall.
    public static let standard = bufferingNewest(10_000)

    /// Keep every event until the consumer takes it: a consumer that stops iterating without
    /// releasing its stream makes memory grow without limit. Prefer a bounded policy.
    public static let unbounded = EventStreamBufferingPolicy(.unbounded)

    /// Keep at most `limit` events; when full, drop the oldest buffered event.
    /// - Parameter limit: The buffer size; negative values count as zero.
    public static func bufferingNewest(_ limit: Int) -> EventStreamBufferingPolicy {
        EventStreamBufferingPolicy(.newest(max(0, limit)))
    }

    /// Keep at most `limit` events; when full, drop the new event.
    /// - Parameter limit: The buffer size; negative values count as zero.
    public static func bufferingOldest(_ limit: Int) -> EventStreamBufferingPolicy {
        EventStreamBufferingPolicy(.oldest(max(0, limit)))
    }

    /// The buffer's size; nil when unbounded.
    public var limit: Int? {
        switch kind {
        case .unbounded: nil
        case .newest(let limit), .oldest(let limit): limit
        }
    }

    /// The policy as written in code, such as `bufferingNewest(10)`.
    public var description: String {
        switch kind {
        case .unbounded: "unbounded"
        case .newest(let limit): "bufferingNewest(\(limit))"
        case .oldest(let limit): "bufferingOldest(\(limit))"
        }
    }

    func streamPolicy<T>(of type: T.Type) -> AsyncStream<T>.Continuation.BufferingPolicy {
        switch kind {
        case .unbounded: .unbounded
        case .newest(let limit): .bufferingNewest(limit)
        case .oldest(let limit): .bufferingOldest(limit)
        }
    }
}
