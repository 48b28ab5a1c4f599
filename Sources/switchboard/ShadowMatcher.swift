import DequeModule

/// One side of a dual run.
enum ShadowSide: String, Sendable, CaseIterable, Hashable {
    /// The legacy GraphQL transport.
    case legacy
    /// The AppSync Events transport.
    case appsync

    /// The other side.
    var other: ShadowSide { self == .legacy ? .appsync : .legacy }
}

/// Pairs the events of the two transports of a dual run. Pure: times are passed in, as offsets
/// from the run's start on its clock.
///
/// Two events match when they came on the same stream with the same content (the typed event in
/// the new contract's field names, without the metadata only AppSync Events carries). An event
/// whose twin has not come from the other side within ``window`` is counted as only on its side.
/// The same content may come several times; the n-th copy on one side pairs with the n-th on the
/// other.
struct ShadowMatcher: Sendable {
    /// What happened to one event.
    enum Outcome: Sendable, Equatable {
        /// It paired with its twin; `difference` is the AppSync Events arrival minus the legacy one.
        case matched(stream: String, difference: Duration)
        /// No twin came within the window.
        case unmatched(stream: String, side: ShadowSide)
    }

    /// The counts and latency differences of one stream.
    struct StreamFigures: Sendable, Equatable {
        var matched = 0
        var onlyLegacy = 0
        var onlyAppSync = 0
        /// The most recent differences (AppSync Events minus legacy), at most ``differenceCapacity``.
        var differences = Deque<Duration>()

        /// Events counted as only on `side`.
        func only(_ side: ShadowSide) -> Int { side == .legacy ? onlyLegacy : onlyAppSync }

        /// Every judged event: matched pairs count once.
        var judged: Int { matched + onlyLegacy + onlyAppSync }

        /// The nearest-rank percentile of the recent differences; nil when none matched.
        func difference(percentile: Double) -> Duration? {
            guard !differences.isEmpty else { return nil }
            let sorted = differences.sorted()
            let index = Int((percentile / 100 * Double(sorted.count)).rounded(.up)) - 1
            return sorted[max(0, min(sorted.count - 1, index))]
        }
    }

    private struct Key: Hashable {
        var stream: String
        var content: String
    }

    /// How long an event waits for its twin.
    let window: Duration
    /// How many recent differences each stream keeps for its percentiles.
    let differenceCapacity: Int
    private var pending: [ShadowSide: [Key: Deque<Duration>]] = [.legacy: [:], .appsync: [:]]
    private(set) var figures: [String: StreamFigures] = [:]

    /// - Parameters:
    ///   - window: How long an event waits for its twin before it counts as only on its side.
    ///   - streams: Streams listed even before their first event.
    ///   - differenceCapacity: How many recent differences each stream keeps.
    init(window: Duration, streams: [String] = [], differenceCapacity: Int = 10_000) {
        self.window = window
        self.differenceCapacity = max(1, differenceCapacity)
        for stream in streams { figures[stream] = StreamFigures() }
    }

    /// Takes in an event that arrived on `side` at `time`, pairing it if its twin is waiting.
    /// - Returns: The outcome when the event was paired; nil when it now waits for its twin.
    mutating func receive(_ side: ShadowSide, stream: String, content: String, at time: Duration) -> Outcome? {
        let key = Key(stream: stream, content: content)
        if var waiting = pending[side.other]?[key], let twin = waiting.popFirst() {
            pending[side.other]?[key] = waiting.isEmpty ? nil : waiting
            let difference = side == .appsync ? time - twin : twin - time
            var stats = figures[stream] ?? StreamFigures()
            stats.matched += 1
            stats.differences.append(difference)
            if stats.differences.count > differenceCapacity { stats.differences.removeFirst() }
            figures[stream] = stats
            return .matched(stream: stream, difference: difference)
        }
        pending[side, default: [:]][key, default: []].append(time)
        if figures[stream] == nil { figures[stream] = StreamFigures() }
        return nil
    }

    /// Counts every event that has waited longer than ``window`` at `now` as only on its side.
    /// - Returns: Those events' outcomes.
    mutating func expire(now: Duration) -> [Outcome] {
        var outcomes: [Outcome] = []
        for side in ShadowSide.allCases {
            guard let waiting = pending[side] else { continue }
            var kept: [Key: Deque<Duration>] = [:]
            for (key, var times) in waiting {
                while let first = times.first, now - first > window {
                    times.removeFirst()
                    outcomes.append(.unmatched(stream: key.stream, side: side))
                    if side == .legacy { figures[key.stream, default: StreamFigures()].onlyLegacy += 1 }
                    else { figures[key.stream, default: StreamFigures()].onlyAppSync += 1 }
                }
                if !times.isEmpty { kept[key] = times }
            }
            pending[side] = kept
        }
        return outcomes
    }

    /// Events of `stream` (every stream when nil) still waiting on `side`.
    func pendingCount(_ side: ShadowSide, stream: String? = nil) -> Int {
        (pending[side] ?? [:]).reduce(0) { total, entry in
            stream == nil || entry.key.stream == stream ? total + entry.value.count : total
        }
    }

    /// The totals over every stream.
    var total: StreamFigures {
        figures.values.reduce(into: StreamFigures()) { total, stats in
            total.matched += stats.matched
            total.onlyLegacy += stats.onlyLegacy
            total.onlyAppSync += stats.onlyAppSync
        }
    }

    /// The share of judged events that found no twin, 0 when none was judged.
    var divergence: Double {
        let total = self.total
        return total.judged == 0 ? 0 : Double(total.onlyLegacy + total.onlyAppSync) / Double(total.judged)
    }
}
