import SwitchboardCore

/// When the soak's events fall due: `rate` a second from the start, `rate × duration` in all.
///
/// Pure (the elapsed time is passed in), so the publisher's arithmetic is tested without a clock.
/// The publisher asks what is due on every tick and sends it, in index order, in one call, until
/// all ``total`` are out (``isDone``). A tick that comes late sends more, but at most ``burst``
/// (twice a tick's worth): a backend's events come at its own pace, not in a heap after the
/// publisher was held up, so a publisher behind its time catches up gently and finishes later
/// rather than logging seconds of events within a millisecond. (Such a heap of equal legacy values,
/// logged while a subscription was being set up on the server, is the legacy contract's one
/// ambiguity; RELIABILITY.md.) ``largestLag`` says how far behind its time the oldest event of a
/// send was at worst: whether the soak held its rate.
struct PublishSchedule: Sendable, Equatable {
    /// Events a second.
    let rate: Int
    /// Every event the run publishes: `rate × duration`.
    let total: Int
    /// The most one tick hands out: twice what falls due in a tick.
    let burst: Int
    /// The events handed out so far: indices `0..<sent`.
    private(set) var sent = 0
    /// The most any send was behind: the time of the send less the due time of its oldest event.
    private(set) var largestLag: Duration = .zero

    /// - Parameter tick: How often the publisher asks what is due.
    init(rate: Int, duration: Duration, tick: Duration) {
        self.rate = max(1, rate)
        total = Int((duration.seconds * Double(self.rate)).rounded())
        burst = max(1, Int((2 * Double(self.rate) * tick.seconds).rounded(.up)))
    }

    /// Whether every event was handed out.
    var isDone: Bool { sent == total }

    /// The events due `elapsed` after the start and not yet handed out, at most ``burst`` (empty
    /// when none are); they count as sent.
    mutating func due(at elapsed: Duration) -> Range<Int> {
        let (seconds, attoseconds) = elapsed.components
        let count = Int(seconds) * rate + Int(attoseconds / 1_000_000_000) * rate / 1_000_000_000
        return take(upTo: min(total, max(0, count), sent + burst), at: elapsed)
    }

    /// When event `index` falls due, from the start.
    func dueTime(of index: Int) -> Duration {
        .seconds(index / rate) + .nanoseconds((index % rate) * 1_000_000_000 / rate)
    }

    private mutating func take(upTo end: Int, at elapsed: Duration) -> Range<Int> {
        guard end > sent else { return sent..<sent }
        let range = sent..<end
        largestLag = max(largestLag, elapsed - dueTime(of: sent))
        sent = end
        return range
    }
}
