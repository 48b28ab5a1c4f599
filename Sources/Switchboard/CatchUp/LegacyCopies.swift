import Foundation
import SwitchboardSync

/// When one connection of the notifier was open, as moments of the notifier's monotonic
/// timeline (its ``BackendClock``): from when the transport reported it connected (before
/// subscribing on it) until it reported it lost (nil while open). Never on this device's wall
/// clock: the log's times are the backend's.
struct ConnectionWindow: Equatable {
    var opened: Duration
    var closed: Duration?
    /// When the server acknowledged the subscription serving each stream on this connection (on
    /// a transport that acknowledges subscriptions): the server had it in place by then.
    var acknowledged: [StreamID: Duration] = [:]
    /// The streams whose first live event on this connection has been matched.
    var matched: Set<StreamID> = []

    init(opened: Duration, closed: Duration? = nil) {
        self.opened = opened
        self.closed = closed
    }

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
    func mayCarry(loggedAt: Date, backendTime: BackendTimeEstimate) -> Bool {
        let logged = Self.milliseconds(loggedAt, .down)
        guard logged >= Self.milliseconds(backendTime.reading(at: opened).time, .down) else { return false }
        guard let closed else { return true }
        let close = backendTime.reading(at: closed)
        return logged <= Self.milliseconds(close.time.addingTimeInterval(close.uncertainty.seconds), .up)
    }

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
/// missed in a gap is logged between two windows and never matches.
///
/// What the window alone leaves open is the start of each subscription: an event logged after
/// the connection opened but before the server had the subscription in place is fetched and
/// never arrives live, and a later live event with equal fields must not be taken for its copy
/// (plan `true`, `false` logged there, then `true`, `false` live: first-equal matching would run
/// a period behind and take the next new `true` and `false` for copies). Where the server
/// acknowledges subscriptions, the first live event of a stream on a connection is matched with
/// what its arrival tells (``firstCopy(of:in:window:acknowledged:arrival:backendTime:horizon:)``):
/// the subscription was in place by its acknowledgement, so only events logged up to it are in
/// doubt; the first live event is the copy of the latest of those with its fields logged before it
/// arrived; and one that arrives more than a horizon after the acknowledgement is the copy of none
/// of them (their live copies, had they been sent, would have come by then). After that first
/// event, copies follow in log order. Without acknowledgements (graphql-ws,
/// graphql-transport-ws) the subscription's start is not known, and the first equal event in the
/// window is taken: an equal event logged in those first milliseconds can still swallow a later
/// one.
struct LegacyCopies {
    struct Fetched {
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
    /// at or after the cursor, with the same fields and logged while `window` was open (for the
    /// first live event of the stream on a connection whose subscription was acknowledged, the
    /// one ``firstCopy(of:in:window:acknowledged:arrival:backendTime:horizon:)`` picks). The
    /// cursor moves past it; the events it passes did not arrive live, and cannot any more.
    /// - Parameters:
    ///   - key: The live event's fields.
    ///   - stream: Its stream.
    ///   - window: The connection it arrived on; notes that the stream's first live event on it
    ///     was matched.
    ///   - arrival: When it arrived, on the notifier's timeline (read only for a first event).
    ///   - backendTime: What the sync answers taught of the backend's clock.
    ///   - horizon: How long after a subscription's acknowledgement a live copy of an event logged
    ///     before it can still arrive.
    mutating func takeCopy(
        _ key: FingerprintKey, stream: StreamID, arrivedOn window: inout ConnectionWindow,
        at arrival: @autoclosure () -> Duration, backendTime: BackendTimeEstimate, horizon: Duration
    ) -> Bool {
        var first = false
        if !window.matched.contains(stream) {
            window.matched.insert(stream)
            first = true
        }
        guard let entry = streams[stream] else { return false }
        let candidates = entry.events[entry.next...]
        let found: Int?
        if first, let acknowledged = window.acknowledged[stream] {
            found = Self.firstCopy(
                of: key, in: candidates, window: window, acknowledged: acknowledged, arrival: arrival(),
                backendTime: backendTime, horizon: horizon)
        } else {
            found = candidates.firstIndex { $0.key == key && window.mayCarry(loggedAt: $0.loggedAt, backendTime: backendTime) }
        }
        guard let index = found else { return false }
        pass(stream, upTo: index + 1)
        return true
    }

    /// Which fetched event, if any, the first live event of a stream on a connection is the copy
    /// of, its subscription acknowledged at moment `acknowledged`.
    ///
    /// The live events of a subscription are a contiguous run of the log from the moment the
    /// server put it in place, which lies between the connection's opening and the
    /// acknowledgement. Fetched events logged after the acknowledgement (read in the backend's
    /// time, widened by the estimate's uncertainty) certainly arrive live, so the first of them
    /// ends the search; those logged up to it may or may not have. The copy is the latest event
    /// with the live one's fields, among those in doubt and the first certain one, that was
    /// logged no later than the live one arrived. One in doubt is a candidate only while the live
    /// event arrived within `horizon` of the acknowledgement; past it, it would have come
    /// earlier. When the first certain event differs and nothing in doubt matches, the live event
    /// is matched as any later one is (the first equal event from there).
    static func firstCopy(
        of key: FingerprintKey, in candidates: ArraySlice<Fetched>, window: ConnectionWindow, acknowledged: Duration,
        arrival: Duration, backendTime: BackendTimeEstimate, horizon: Duration
    ) -> Int? {
        let acknowledgement = backendTime.reading(at: acknowledged)
        let inDoubtUntil = ConnectionWindow.milliseconds(
            acknowledgement.time.addingTimeInterval(acknowledgement.uncertainty.seconds), .up)
        let arrived = backendTime.reading(at: arrival)
        let loggedBy = ConnectionWindow.milliseconds(arrived.time.addingTimeInterval(arrived.uncertainty.seconds), .up)
        let inDoubtMayMatch = arrival <= acknowledged + horizon
        var latest: Int?
        for index in candidates.indices {
            let event = candidates[index]
            let logged = ConnectionWindow.milliseconds(event.loggedAt, .down)
            // Logged after the live event arrived: neither it nor any later one is its original.
            if logged > loggedBy { return latest }
            let inDoubt = logged <= inDoubtUntil
            if event.key == key, !inDoubt || inDoubtMayMatch, window.mayCarry(loggedAt: event.loggedAt, backendTime: backendTime) {
                latest = index
            }
            if !inDoubt {
                if let latest { return latest }
                // Outside the model (a certain event that never came): match as later events are.
                return candidates[index...].firstIndex {
                    $0.key == key && window.mayCarry(loggedAt: $0.loggedAt, backendTime: backendTime)
                }
            }
        }
        return latest
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
