import SwitchboardCore

extension GraphQLConnectionStateMachine {
    /// The owner called `connect(as:)`: replace any connection and start a fresh connect cycle.
    mutating func connect() -> [Action] {
        guard phase != .shutDown else { return [] }
        var actions = closeCurrent(code: .normalClosure, reason: "reconnecting as a new identity")
        signedIn = true
        refreshedAfterRejection = false
        actions += startOpening(attempt: 1, tokenReason: .connect)
        return actions
    }

    /// The owner called `disconnect()`.
    mutating func disconnect() -> [Action] {
        guard phase != .shutDown else { return [] }
        signedIn = false
        var actions = closeCurrent(code: .normalClosure, reason: "disconnect")
        phase = .idle
        actions.append(.report(.connectionStateChanged(.idle)))
        return actions
    }

    /// The owner called `shutDown()`.
    mutating func shutDown() -> [Action] {
        guard phase != .shutDown else { return [] }
        signedIn = false
        var actions = closeCurrent(code: .normalClosure, reason: "shut down")
        phase = .shutDown
        held.removeAll()
        actions.append(.report(.connectionStateChanged(.shutDown)))
        actions.append(.finish)
        return actions
    }

    /// The owner added a subscription (or replaced one under the same key).
    mutating func subscribe(_ request: SubscriptionRequest) -> [Action] {
        guard phase != .shutDown else { return [] }
        var actions = unsubscribe(request.key)
        held[request.key] = Held(request: request)
        if case .connected(let connection, _) = phase {
            actions += sendStart(request.key, on: connection)
        }
        return actions
    }

    /// The owner removed a subscription. A stop goes out only for an id the server knows.
    mutating func unsubscribe(_ key: SubscriptionKey) -> [Action] {
        guard let removed = held.removeValue(forKey: key) else { return [] }
        guard case .connected(let connection, _) = phase else { return [] }
        switch removed.wire {
        case .pending:
            return []
        case .sent(let id):
            active[id] = .cancelled  // stopped once the server acknowledges it
            return []
        case .established(let id):
            active[id] = nil
            return [.send(connection, .unsubscribe(id: id))]
        }
    }

    // MARK: Helpers shared by the other files

    /// Closes the current connection, if any; held subscriptions become pending.
    mutating func closeCurrent(code: WebSocketCloseCode, reason: String) -> [Action] {
        var actions: [Action] = []
        if let connection = currentConnection {
            if settings.dialect == .graphQLWS, case .connected = phase {
                actions.append(.send(connection, .terminate))
            }
            // Closed, the socket is forgotten: the driver drops whatever it still delivers.
            actions.append(.close(connection, code: code, reason: reason))
        }
        resetWire()
        return actions
    }

    mutating func resetWire() {
        active.removeAll()
        for key in held.keys { held[key]?.wire = .pending }
    }

    mutating func startOpening(attempt: Int, tokenReason: TokenRequestReason) -> [Action] {
        lastConnection = lastConnection.next
        phase = .opening(connection: lastConnection, attempt: attempt)
        return [
            .report(.connectionStateChanged(.connecting(attempt: attempt))),
            .open(lastConnection, reason: tokenReason),
        ]
    }

    /// Sends the `start` of a held subscription on an acknowledged connection.
    mutating func sendStart(_ key: SubscriptionKey, on connection: ConnectionID) -> [Action] {
        guard let entry = held[key], case .graphQL(let operation) = entry.request.target else { return [] }
        let id = makeID()
        active[id] = .serving(key)
        let start = Action.send(connection, .subscribe(id: id, operation: operation, authorization: nil))
        if capabilities.acknowledgesStart {
            held[key]?.wire = .sent(id: id)
            return [start]
        }
        // No per-subscription acknowledgement in this dialect: a start sent on an acknowledged
        // connection counts as established (the server processes frames in order). Reported just
        // before the start goes out: the notifier stamps the report, and no event logged before
        // that moment can arrive on this subscription (how legacy live copies are told apart).
        held[key]?.wire = .established(id: id)
        return [.report(.subscriptionEstablished(key)), start]
    }

    var isSignedIn: Bool { signedIn }
}
