import SwitchboardCore

/// Checking the connection on demand (``ConnectionVerifying``): a WebSocket ping on the current
/// socket, and a deadline for its pong on the injected clock. A pong in time keeps the
/// connection; no pong in time, or a ping that fails, closes it and connects again at once
/// (attempt 1, no reconnect delay), with every held subscription sent again on the new socket.
extension AppSyncConnectionMachine {
    /// A check waiting for the pong of socket `generation`.
    struct ConnectionCheck: Equatable {
        var generation: Int
        var deadline: Instant
        var timeout: Duration
    }

    /// The check that still counts: one on the current, connected socket. A check on a socket
    /// that was replaced, closed or lost meanwhile is stale and ignored.
    var activeCheck: ConnectionCheck? {
        guard let check, check.generation == generation, case .connected = phase else { return nil }
        return check
    }

    /// The owner asked for a check. Connected: ping (unless a check is already running).
    /// Waiting to reconnect: connect now, with the attempt number it was waiting for. Otherwise
    /// nothing.
    mutating func verifyConnection(timeout: Duration, at now: Instant) -> [Action] {
        switch phase {
        case .connected:
            guard activeCheck == nil else { return [] }
            check = ConnectionCheck(generation: generation, deadline: now.advanced(by: timeout), timeout: timeout)
            return [.pingSocket(generation: generation)]
        case .waiting(let attempt, _):
            return startConnecting(attempt: attempt, reason: .connect)
        case .idle, .connecting, .awaitingAck, .stopped:
            return []
        }
    }

    /// The pong of a check's ping arrived on `generation` at `now`.
    mutating func pongReceived(generation: Int, at now: Instant) -> [Action] {
        guard let check = activeCheck, check.generation == generation else { return [] }
        guard now < check.deadline else { return checkFailed(ConnectionCheckFailure.noPong(within: check.timeout), at: now) }
        self.check = nil
        return [.checkPassed(generation: generation)]
    }

    /// A check's ping on `generation` failed (the socket closed, or the engine cannot ping).
    mutating func pingFailed(generation: Int, _ error: SwitchboardError, at now: Instant) -> [Action] {
        guard let check = activeCheck, check.generation == generation else { return [] }
        return checkFailed(ConnectionCheckFailure.pingFailed(error), at: now)
    }

    /// Closes the checked socket, reports `error` and connects again at once.
    mutating func checkFailed(_ error: SwitchboardError, at now: Instant) -> [Action] {
        check = nil
        let lost = generation
        resetSubscriptions()
        var actions: [Action] = [.close(generation: lost, code: .goingAway)] + dropOverlap()
        actions += failPublishes(SwitchboardError(
            code: .network, message: "the connection check failed before the publish was answered; the events may or may not have been published",
            cause: error)) { $0 == lost }
        actions.append(.emit(.error(error)))
        return actions + startConnecting(attempt: 1, reason: .connect)
    }
}
