import SwitchboardCore

/// Published on the ``EventBroker`` when a consumer stream's buffer overflows, and again when its
/// consumer has caught up.
///
/// A stream's ``EventStreamBufferingPolicy`` bounds how many values wait for a slow consumer.
/// When the buffer is full, values are dropped (which ones depends on the policy) and counted:
/// in the broker's ``EventBroker/MetricsReport/droppedCounts`` and `dropped` metric for
/// ``EventBroker`` streams, and in `switchboard.notifier.consumer_dropped` (dimension `stream`)
/// for ``BackendNotifier`` streams. An overflow is an episode: ``Phase-swift.enum/began`` is
/// published at its first drop, ``Phase-swift.enum/ended`` with the episode's total once the
/// consumer has emptied at least half of the buffer again (seen at the next value it is given).
/// Values dropped this way are not caught up later: size the buffer for the bursts you expect.
public struct ConsumerOverflowEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.consumerOverflow"

    /// Where an overflow episode stands.
    public enum Phase: String, Sendable, Hashable {
        /// The buffer was full and the first value was dropped.
        case began
        /// The consumer emptied at least half of the buffer again; ``dropped`` is the total.
        case ended
    }

    /// The stream that overflowed: a notifier stream such as `devicePresence`, `connectionStates`
    /// or `errors`; for an ``EventBroker`` stream, the event name, or `category:NAME`.
    public var stream: String
    /// The stream's buffering policy.
    public var policy: EventStreamBufferingPolicy
    /// Where the episode stands.
    public var phase: Phase
    /// Values dropped in this episode so far: 1 when it began, the total when it ended.
    public var dropped: Int

    /// Creates the event.
    public init(stream: String, policy: EventStreamBufferingPolicy, phase: Phase, dropped: Int) {
        self.stream = stream
        self.policy = policy
        self.phase = phase
        self.dropped = dropped
    }
}

/// Follows one stream's buffer through overflow episodes: it turns the results of `yield` into
/// the ``ConsumerOverflowEvent``s to report, at most one per episode start and one per end.
final class OverflowMonitor: Sendable {
    private struct Episode {
        var overflowing = false
        var dropped = 0
    }

    let stream: String
    let policy: EventStreamBufferingPolicy
    private let episode = LockedValue(Episode())

    init(stream: String, policy: EventStreamBufferingPolicy) {
        self.stream = stream
        self.policy = policy
    }

    /// Records what one `yield` did; returns the event to report, if the episode changed.
    func record<Element>(_ result: AsyncStream<Element>.Continuation.YieldResult) -> ConsumerOverflowEvent? {
        switch result {
        case .dropped:
            return episode.withLock { episode in
                episode.dropped += 1
                guard !episode.overflowing else { return nil }
                episode.overflowing = true
                return ConsumerOverflowEvent(stream: stream, policy: policy, phase: .began, dropped: episode.dropped)
            }
        case .enqueued(let remaining):
            guard let limit = policy.limit else { return nil }
            return episode.withLock { episode in
                guard episode.overflowing, remaining * 2 >= limit else { return nil }
                defer { episode = Episode() }
                return ConsumerOverflowEvent(stream: stream, policy: policy, phase: .ended, dropped: episode.dropped)
            }
        case .terminated:
            return nil
        @unknown default:
            return nil
        }
    }
}
