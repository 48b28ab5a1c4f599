import Foundation
import SwitchboardSync

/// When one connection of the notifier was open, as moments of the notifier's monotonic
/// timeline (its ``BackendClock``): from when the transport reported it connected (before
/// subscribing on it) until it reported it lost (nil while open). Never on this device's wall
/// clock: the log's times are the backend's.
struct ConnectionWindow: Equatable {
    var opened: Duration
    var closed: Duration?
    /// Per stream, when its subscription's start went out on this connection, where the
    /// transport reports that (one that acknowledges no subscription reports it established as
    /// it sends the start): nothing logged earlier arrives on it for that stream. A subscription
    /// started again on the same connection keeps the first moment.
    var started: [StreamID: Duration] = [:]

    /// Whether an event the backend logged at `loggedAt` can have been sent on this connection,
    /// the window's moments read as the backend's times from `backendTime`, to whole
    /// milliseconds (the log's precision).
    ///
    /// The estimate's uncertainty is carried asymmetrically. The close is widened by it: a copy
    /// that arrived just before the connection was lost is still matched, and matching in log
    /// order keeps a later event from being taken for it. The opening is not: widening it would
    /// let an event logged in the gap before the connection (which never arrives live) be taken
    /// for the copy of a later live event with equal fields, and lose that one, while an event
    /// logged in the first moments after the opening never arrives live either (the server had
    /// no subscription on the connection yet), so an estimate a little late costs nothing.
    ///
    /// For a `stream` whose start went out after the connection opened, the window opens for it
    /// then, read earlier by the estimate's uncertainty and by ``fanOutMargin``: the server puts
    /// the subscription in place moments after the start goes out, and may send an event some
    /// time after it logged it, so an opening read late would leave out events that did arrive
    /// live, and their fetched copies would be delivered twice. Without it, on a busy client the
    /// window of the last subscriptions started opens one hop of the event loop per earlier
    /// start too soon, and an equal value logged in that time is taken for a copy.
    func mayCarry(loggedAt: Date, stream: StreamID? = nil, backendTime: BackendTimeEstimate) -> Bool {
        let logged = Self.milliseconds(loggedAt, .down)
        var opening = Self.milliseconds(backendTime.reading(at: opened).time, .down)
        if let stream, let start = started[stream] {
            let reading = backendTime.reading(at: start)
            let earliest = reading.time.addingTimeInterval(-reading.uncertainty.seconds - Self.fanOutMargin.seconds)
            opening = max(opening, Self.milliseconds(earliest, .down))
        }
        guard logged >= opening else { return false }
        guard let closed else { return true }
        let close = backendTime.reading(at: closed)
        return logged <= Self.milliseconds(close.time.addingTimeInterval(close.uncertainty.seconds), .up)
    }

    /// How long a backend may take from logging an event to sending it to the subscriptions in
    /// place then, at most, as far as a subscription's window is concerned: an event logged this
    /// long before a subscription's start may still arrive on it.
    static let fanOutMargin = Duration.milliseconds(25)

    /// `date` in whole milliseconds since 1970, rounded by `rule`. A `Date` holds seconds since
    /// 2001 in a `Double`, so a time read as 100 ms can come out 99.9999998 ms after 1970's
    /// conversion: the value is first nudged by a microsecond towards the rounding, so such an
    /// error never costs a whole millisecond.
    static func milliseconds(_ date: Date, _ rule: FloatingPointRoundingRule) -> Double {
        let value = date.timeIntervalSince1970 * 1000
        return (rule == .down ? value + 0.001 : value - 0.001).rounded(rule)
    }
}

/// Recognises live copies of caught-up events on the legacy GraphQL transport, whose payloads
/// carry no timestamp: equal fields alone cannot tell a copy from a new event with the same
/// values (plan `true`, `false`, `true`).
///
/// Two facts make the match exact for distinct values and narrow for equal ones. Live events
/// of a stream arrive in the order the backend logged them (each connection sends a contiguous
/// run of the log, and connections follow one another), so copies are matched in log order
/// behind a cursor; and a connection carries only events logged while it was open, so a copy
/// arriving on it matches only a fetched event logged within its ``ConnectionWindow``. An event
/// missed in a gap is logged between two windows and never matches. A stream whose subscription
/// started after the connection opened has its window open then (``ConnectionWindow/started``).
/// What stays ambiguous is an event logged after a subscription's start (less the margins) but
/// before the server had the subscription in place (it never arrives live): a later event with
/// equal fields arriving first on that connection is taken for its copy.
struct LegacyCopies {
    private struct Fetched {
        var key: FingerprintKey
        var loggedAt: Date
        var bytes: Int
    }

    /// Per stream: fetched events in log order, and the first one not yet passed by a copy.
    private var streams: [StreamID: (events: [Fetched], next: Int)] = [:]
    /// What the fetched events not yet passed cost, in bytes (their fingerprints' ``Fingerprint/bytes``).
    private(set) var bytes = 0

    /// Remembers an event a catch-up delivered.
    mutating func fetched(_ mark: Fingerprint, stream: StreamID, loggedAt: Date) {
        streams[stream, default: ([], 0)].events.append(Fetched(key: mark.key, loggedAt: loggedAt, bytes: mark.bytes))
        bytes += mark.bytes
    }

    /// Whether a live event is the copy of a fetched one: the first fetched event of its stream,
    /// at or after the cursor, with the same fields and logged while `window` was open. The
    /// cursor moves past it; the events it passes did not arrive live, and cannot any more.
    mutating func takeCopy(
        _ key: FingerprintKey, stream: StreamID, arrivedOn window: ConnectionWindow, backendTime: BackendTimeEstimate
    ) -> Bool {
        guard let entry = streams[stream] else { return false }
        let candidates = entry.events[entry.next...]
        guard let index = candidates.firstIndex(where: {
            $0.key == key && window.mayCarry(loggedAt: $0.loggedAt, stream: stream, backendTime: backendTime)
        }) else {
            return false
        }
        pass(stream, upTo: index + 1)
        return true
    }

    /// Forgets the oldest fetched events (by log time, across streams) until the rest cost at
    /// most `limit` bytes; returns how many went. A live copy of one of them that arrives later
    /// is taken for a new event.
    mutating func evict(downTo limit: Int) -> Int {
        var evicted = 0
        while bytes > limit {
            let oldest = streams.min { $0.value.events[$0.value.next].loggedAt < $1.value.events[$1.value.next].loggedAt }
            guard let (stream, entry) = oldest else { break }
            pass(stream, upTo: entry.next + 1)
            evicted += 1
        }
        return evicted
    }

    /// Moves `stream`'s cursor to `next`, dropping what it passed once that is most of the array.
    private mutating func pass(_ stream: StreamID, upTo next: Int) {
        guard var entry = streams.removeValue(forKey: stream) else { return }
        bytes -= entry.events[entry.next..<next].reduce(0) { $0 + $1.bytes }
        entry.next = next
        if entry.next == entry.events.count { return }
        if entry.next * 2 > entry.events.count {
            entry.events.removeFirst(entry.next)
            entry.next = 0
        }
        streams[stream] = entry
    }

    /// Forgets the fetched events that no connection opened at or after moment `opened` can
    /// carry, and those the cursors passed.
    mutating func forget(notCarriedAfter opened: Duration, backendTime: BackendTimeEstimate) {
        let bound = ConnectionWindow(opened: opened)
        bytes = 0
        for (stream, entry) in streams {
            let kept = entry.events[entry.next...].filter { bound.mayCarry(loggedAt: $0.loggedAt, backendTime: backendTime) }
            streams[stream] = kept.isEmpty ? nil : (Array(kept), 0)
            bytes += kept.reduce(0) { $0 + $1.bytes }
        }
    }

    /// How many fetched events are remembered.
    var count: Int { streams.values.reduce(0) { $0 + $1.events.count - $1.next } }
}
