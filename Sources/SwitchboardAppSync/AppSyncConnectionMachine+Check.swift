import SwitchboardCore

/// Checking the connection on demand (``ConnectionVerifying``): a WebSocket ping on the current
/// socket, and a deadline for its pong on the injected clock. A pong in time keeps the
/// connection; no pong in time, or a ping that fails, closes it and connects again at once
/// (attempt 1, no reconnect delay), with every held subscription sent again on the new socket.
extension AppSyncConnectionMachine {
    /// A check waiting for the pong of socket `connection`.
    struct ConnectionCheck: Equatable {
        var connection: ConnectionID
        var deadline: Duration
        var timeout: Duration
    }

    /// The check that still counts: one on the current, connected socket. A new current socket
    /// (a reconnect or a replacement) drops the check, and a socket that was closed, lost or
    /// retired meanwhile delivers no pong (the driver drops it).
    var activeCheck: ConnectionCheck? {
        guard let check, case .connected = phase else { return nil }
        return check
    }

    /// The owner asked for a check. Connected: ping (unless a check is already running).
    /// Waiting to reconnect: connect now, with the attempt number it was waiting for. Otherwise
    /// nothing.
    mutating func verifyConnection(timeout: Duration, at now: Duration) -> [Action] {
        switch phase {
        case .connected:
            guard activeCheck == nil else { return [] }
            check = ConnectionCheck(connection: current, deadline: now + timeout, timeout: timeout)
            return [.ping(current)]
        case .waiting(let attempt, _):
            return startConnecting(attempt: attempt, reason: .connect)
        case .idle, .connecting, .awaitingAck, .stopped:
            return []
        }
    }

    /// The pong of a check's ping arrived on `connection` at `now`.
    mutating func pongReceived(on connection: ConnectionID, at now: Duration) -> [Action] {
        guard let check = activeCheck else { return [] }
        guard now < check.deadline else { return checkFailed(ConnectionCheckFailure.noPong(within: check.timeout), at: now) }
        self.check = nil
        return [.checkPassed(connection)]
    }

    /// A check's ping on `connection` failed (the socket closed, or the engine cannot ping).
    mutating func pingFailed(on connection: ConnectionID, _ error: SwitchboardError, at now: Duration) -> [Action] {
        guard activeCheck != nil else { return [] }
        return checkFailed(ConnectionCheckFailure.pingFailed(error), at: now)
    }

    /// Closes the checked socket, reports `error` and connects again at once.
    mutating func checkFailed(_ error: SwitchboardError, at now: Duration) -> [Action] {
        check = nil
        let lost = current
        resetSubscriptions()
        var actions: [Action] = [.close(lost, code: .goingAway, reason: "")] + dropOverlap()
        actions += failPublishes(SwitchboardError(
            code: .network, message: "the connection check failed before the publish was answered; the events may or may not have been published",
            cause: error)) { $0 == lost }
        actions.append(.report(.error(error)))
        return actions + startConnecting(attempt: 1, reason: .connect)
    }
}
