import SwitchboardCore

/// When the soak's events fall due: `rate` a second from the start, `rate × duration` in all.
///
/// Pure (the elapsed time is passed in), so the publisher's arithmetic is tested without a clock.
/// The publisher asks what is due on every tick and sends it, in index order, in one call, until
/// all ``total`` are out (``isDone``). A tick that comes late sends more, but never more than
/// twice the rate over the time since the previous tick, and that time counts for at most
/// ``catchUpWindow`` (or the previous send's duration, when sends are slower): a backend's events
/// come at its own pace, so a publisher held up behind a busy process catches up at twice the
/// rate instead of logging a second of events within a millisecond. (Such a heap of equal legacy
/// values, logged while a subscription was being set up on the server, is the legacy contract's
/// one ambiguity; RELIABILITY.md.) A publisher whose every send is slow still keeps the rate.
/// ``largestLag`` says how far behind its time the oldest event of a send was at worst.
struct PublishSchedule: Sendable, Equatable {
    /// Events a second.
    let rate: Int
    /// Every event the run publishes: `rate × duration`.
    let total: Int
    /// The most of the time since the previous tick that counts towards a tick's catch-up.
    static let catchUpWindow = Duration.milliseconds(50)
    /// The events handed out so far: indices `0..<sent`.
    private(set) var sent = 0
    /// The most any send was behind: the time of the send less the due time of its oldest event.
    private(set) var largestLag: Duration = .zero
    /// When the previous tick asked.
    private var lastAsked: Duration?

    init(rate: Int, duration: Duration) {
        self.rate = max(1, rate)
        total = Int((duration.seconds * Double(self.rate)).rounded())
    }

    /// Whether every event was handed out.
    var isDone: Bool { sent == total }

    /// The events due `elapsed` after the start and not yet handed out (empty when none are),
    /// no more than twice the rate allows since the previous tick (see the type); they count as
    /// sent.
    /// - Parameter lastSend: How long the previous send took.
    mutating func due(at elapsed: Duration, lastSend: Duration = .zero) -> Range<Int> {
        let since = lastAsked.map { elapsed - $0 } ?? Self.catchUpWindow
        lastAsked = elapsed
        let span = min(since, max(Self.catchUpWindow, lastSend))
        let allowance = max(1, Int((2 * Double(rate) * span.seconds).rounded(.up)))
        let (seconds, attoseconds) = elapsed.components
        let count = Int(seconds) * rate + Int(attoseconds / 1_000_000_000) * rate / 1_000_000_000
        return take(upTo: min(total, max(0, count), sent + allowance), at: elapsed)
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
