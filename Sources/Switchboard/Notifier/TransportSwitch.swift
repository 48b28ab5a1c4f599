import SwitchboardCore

/// A live switch of transport as a plain value: the generation whose events are accepted, the
/// switch that waits for the previous transport's `run()` to return, and the callers waiting for
/// it to complete. It decides; the notifier stops and starts the transports and resumes the
/// waiters.
///
/// `Transport` is what takes over (the notifier's `any EventTransport`), `Waiter` what waits for
/// a switch to complete (a continuation); tests use plain values for both.
struct TransportSwitch<Transport, Waiter> {
    /// A switch that waits for the previous transport to stop.
    struct Pending {
        /// The generation of the transport being stopped.
        var retiringGeneration: UInt64
        /// The transport that takes over once the previous one's `run()` returned.
        var next: Transport
        /// The kind being stopped.
        var from: TransportKind
        /// What asked for the switch.
        var selection: TransportSelection
        /// Events from the stopped transport dropped so far.
        var staleEvents = 0
    }

    /// When the next transport takes over.
    enum Takeover: Equatable {
        /// At once: the notifier does not run yet.
        case now
        /// Once the previous transport's `run()` has returned (``previousStopped(_:)``).
        case afterPreviousStops
    }

    /// The generation of the transport whose events are accepted; a switch increments it, so
    /// events still queued from the previous transport are recognised and dropped.
    private(set) var generation: UInt64 = 0
    /// The switch waiting for the previous transport to stop.
    private(set) var pending: Pending?
    /// Callers waiting for the pending switch to complete.
    private var waiters: [Int: Waiter] = [:]

    /// A switch waits for the previous transport to stop.
    var isPending: Bool { pending != nil }

    /// Whether the transport of `generation`, whose `run()` returned, was the last one: the
    /// current transport ended and no switch waits for it.
    func isFinalEnd(of generation: UInt64) -> Bool { generation == self.generation && pending == nil }

    /// A switch to `next` begins: whatever the current transport still reports is stale from
    /// now on. `running`: whether the notifier runs (otherwise `next` takes over at once).
    mutating func begin(
        to next: Transport, from: TransportKind, selection: TransportSelection, running: Bool
    ) -> Takeover {
        generation += 1
        guard running else { return .now }
        pending = Pending(retiringGeneration: generation - 1, next: next, from: from, selection: selection)
        return .afterPreviousStops
    }

    /// The `run()` of the transport of `generation` returned: the switch that waited for it,
    /// which completes now, if any.
    mutating func previousStopped(_ generation: UInt64) -> Pending? {
        guard let pending, pending.retiringGeneration == generation else { return nil }
        self.pending = nil
        return pending
    }

    /// Counts an event the stopped transport reported after the switch began.
    mutating func countStaleEvent() { pending?.staleEvents += 1 }

    /// Adds a caller that waits for the pending switch to complete.
    mutating func addWaiter(_ id: Int, _ waiter: Waiter) { waiters[id] = waiter }

    /// The caller `id` stopped waiting; its waiter, if it still waited.
    mutating func removeWaiter(_ id: Int) -> Waiter? { waiters.removeValue(forKey: id) }

    /// Every waiter, for resuming them: the switch completed or cannot.
    mutating func takeWaiters() -> [Waiter] {
        let taken = Array(waiters.values)
        waiters.removeAll()
        return taken
    }

    /// The notifier shut down: the pending switch, if any, is abandoned (its transport is to be
    /// shut down) and the waiters are to be told.
    mutating func shutDown() -> (abandoned: Transport?, waiters: [Waiter]) {
        let abandoned = pending?.next
        pending = nil
        return (abandoned, takeWaiters())
    }
}
