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

    /// Clears every fault.
    func reset() { state.withLock { $0 = State() } }
}
