import SwitchboardCore

/// When the soak's events fall due: `rate` a second from the start, `rate × duration` in all.
///
/// Pure (the elapsed time is passed in), so the publisher's arithmetic is tested without a clock.
/// The publisher asks what is due on every tick and sends it, in index order, in one call; a
/// tick that comes late sends more, so a slow send never lowers the count, and at the end
/// ``remainder(at:)`` hands out whatever the last ticks did not, so exactly ``total`` events are
/// published. ``largestLag`` says how far behind its time the oldest event of a send was at
/// worst: whether the soak held its rate or only caught up at the end.
struct PublishSchedule: Sendable, Equatable {
    /// Events a second.
    let rate: Int
    /// Every event the run publishes: `rate × duration`.
    let total: Int
    /// The events handed out so far: indices `0..<sent`.
    private(set) var sent = 0
    /// The most any send was behind: the time of the send less the due time of its oldest event.
    private(set) var largestLag: Duration = .zero

    init(rate: Int, duration: Duration) {
        self.rate = max(1, rate)
        total = Int((duration.seconds * Double(self.rate)).rounded())
    }

    /// The events due `elapsed` after the start and not yet handed out (empty when none are);
    /// they count as sent.
    mutating func due(at elapsed: Duration) -> Range<Int> {
        let (seconds, attoseconds) = elapsed.components
        let count = Int(seconds) * rate + Int(attoseconds / 1_000_000_000) * rate / 1_000_000_000
        return take(upTo: min(total, max(0, count)), at: elapsed)
    }

    /// Every event not yet handed out, whether due or not: the publisher's last send.
    mutating func remainder(at elapsed: Duration) -> Range<Int> {
        take(upTo: total, at: elapsed)
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
