import SwitchboardCore

/// Checking the connection on demand (``ConnectionVerifying``), the same in every dialect: a
/// WebSocket ping on the current socket (not the graphql-transport-ws `ping` message, which only
/// one dialect has) and a deadline for its pong, kept in the connected phase's ``Liveness``. A
/// pong in time keeps the connection; no pong in time, or a ping that fails, closes it and
/// connects again at once (attempt 1, no reconnect delay), and every held subscription is
/// started again on the new socket.
extension GraphQLConnectionStateMachine {
    /// The owner asked for a check. Connected: ping (unless a check is already running).
    /// Waiting to reconnect: connect now, with the attempt number it was waiting for. Otherwise
    /// nothing.
    mutating func verifyConnection(timeout: Duration, at now: Duration) -> [Action] {
        switch phase {
        case .connected(let connection, var liveness):
            guard liveness.check == nil else { return [] }
            liveness.check = ConnectionCheck(deadline: now + timeout, timeout: timeout)
            phase = .connected(connection: connection, liveness)
            return [.ping(connection)]
        case .waitingToReconnect(let attempt, _):
            return startOpening(attempt: attempt, tokenReason: .connect)
        case .idle, .opening, .awaitingAck, .disconnected, .shutDown:
            return []
        }
    }

    /// The pong of a check's ping arrived on `connection` at `now`.
    mutating func pongReceived(on connection: ConnectionID, at now: Duration) -> [Action] {
        guard case .connected(let current, var liveness) = phase, let check = liveness.check else { return [] }
        guard now < check.deadline else { return checkFailed(ConnectionCheckFailure.noPong(within: check.timeout)) }
        liveness.check = nil
        phase = .connected(connection: current, liveness)
        return [.checkPassed(current)]
    }

    /// A check's ping on `connection` failed (the socket closed, or the engine cannot ping).
    mutating func pingFailed(on connection: ConnectionID, _ error: SwitchboardError, at now: Duration) -> [Action] {
        guard case .connected(_, let liveness) = phase, liveness.check != nil else { return [] }
        return checkFailed(ConnectionCheckFailure.pingFailed(error))
    }

    /// Closes the checked socket, reports `error` and connects again at once.
    mutating func checkFailed(_ error: SwitchboardError) -> [Action] {
        guard case .connected(let connection, _) = phase else { return [] }
        let code: WebSocketCloseCode = settings.dialect == .graphQLTransportWS ? WebSocketCloseCode(4499) : .normalClosure
        resetWire()
        return [.close(connection, code: code, reason: "connection check failed"), .report(.error(error))]
            + startOpening(attempt: 1, tokenReason: .connect)
    }
}
