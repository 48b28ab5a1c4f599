import SwitchboardCore

/// The faults that apply to new connections and to every written frame.
final class FaultState: Sendable {
    private struct State {
        /// Connections still to refuse; nil when not refusing by count.
        var rejectRemaining: Int?
        /// Refuse every connection until reset.
        var rejectUntilReset = false
        /// Delay before each outbound frame.
        var frameLatency: Duration?
        /// How the sync stream misbehaves, if it does.
        var syncStream: SwitchboardEmulator.SyncStreamFault?
        /// Delay before each sync answer: a REST page, or the stream's `start`.
        var syncRoundTripLatency: Duration?
        /// Per protocol: drop one of every `n` events delivered to its subscriptions.
        var droppedEvents: [TransportKind: (every: Int, seen: Int)] = [:]
    }

    private let state = LockedValue(State())

    /// Refuses the next `count` connections, or every one until ``reset()`` when nil.
    func rejectAuthentication(nextConnections count: Int?) {
        state.withLock { state in
            if let count {
                state.rejectRemaining = count
                state.rejectUntilReset = false
            } else {
                state.rejectUntilReset = true
            }
        }
    }

    /// Whether this new connection is to be refused (consumes one of a counted rejection).
    func consumeRejection() -> Bool {
        state.withLock { state in
            if state.rejectUntilReset { return true }
            guard let remaining = state.rejectRemaining, remaining > 0 else { return false }
            state.rejectRemaining = remaining - 1
            return true
        }
    }

    /// The current per-frame latency.
    var frameLatency: Duration? {
        get { state.withLock { $0.frameLatency } }
        set { state.withLock { $0.frameLatency = newValue } }
    }

    /// How the sync stream misbehaves; nil when it works.
    var syncStream: SwitchboardEmulator.SyncStreamFault? {
        get { state.withLock { $0.syncStream } }
        set { state.withLock { $0.syncStream = newValue } }
    }

    /// The simulated round trip of the sync endpoints.
    var syncRoundTripLatency: Duration? {
        get { state.withLock { $0.syncRoundTripLatency } }
        set { state.withLock { $0.syncRoundTripLatency = newValue } }
    }

    /// Drops one of every `every` events delivered to subscriptions of `kind` (1: every event);
    /// nil stops dropping for that protocol.
    func dropEvents(to kind: TransportKind, every: Int?) {
        state.withLock { state in
            state.droppedEvents[kind] = every.map { (every: max(1, $0), seen: 0) }
        }
    }

    /// Whether the next event for a subscription of `kind` is to be dropped (counts it).
    func dropsNextEvent(to kind: TransportKind) -> Bool {
        state.withLock { state in
            guard var rule = state.droppedEvents[kind] else { return false }
            rule.seen += 1
            state.droppedEvents[kind] = rule
            return rule.seen % rule.every == 0
        }
    }

    /// Clears every fault.
    func reset() { state.withLock { $0 = State() } }
}
