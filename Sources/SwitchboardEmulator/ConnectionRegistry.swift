import SwitchboardCore

/// The live connections of an emulator, by number, so faults can reach each one.
final class ConnectionRegistry: Sendable {
    private struct State {
        var next = 0
        var outboxes: [Int: ConnectionOutbox] = [:]
    }

    private let state = LockedValue(State())

    /// Registers an outbox and returns the connection's number (1, 2, …).
    func register(_ outbox: ConnectionOutbox) -> Int {
        state.withLock { state in
            state.next += 1
            state.outboxes[state.next] = outbox
            return state.next
        }
    }

    /// Forgets a connection.
    func remove(_ number: Int) {
        _ = state.withLock { $0.outboxes.removeValue(forKey: number) }
    }

    /// The live connections' outboxes.
    var all: [ConnectionOutbox] { state.withLock { Array($0.outboxes.values) } }

    /// How many connections are live.
    var count: Int { state.withLock { $0.outboxes.count } }
}
