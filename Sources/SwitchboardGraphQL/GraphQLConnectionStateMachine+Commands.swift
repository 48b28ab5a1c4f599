import SwitchboardCore

extension GraphQLConnectionStateMachine {
    /// The owner called `connect(as:)`: replace any connection and start a fresh connect cycle.
    mutating func connectRequested() -> [Action] {
        guard phase != .shutDown else { return [] }
        var actions = closeCurrent(code: .normalClosure, reason: "reconnecting as a new identity")
        signedIn = true
        refreshedAfterRejection = false
        actions += startOpening(attempt: 1, tokenReason: .connect)
        return actions
    }

    /// The owner called `disconnect()`.
    mutating func disconnectRequested() -> [Action] {
        guard phase != .shutDown else { return [] }
        signedIn = false
        var actions = closeCurrent(code: .normalClosure, reason: "disconnect")
        phase = .idle
        actions.append(.report(.connectionStateChanged(.idle)))
        return actions
    }

    /// The owner called `shutDown()`.
    mutating func shutDownRequested() -> [Action] {
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
    mutating func subscribeRequested(_ request: SubscriptionRequest) -> [Action] {
        guard phase != .shutDown else { return [] }
        var actions = unsubscribeRequested(request.key)
        held[request.key] = Held(request: request)
        if case .connected(let generation, _) = phase {
            actions += sendStart(request.key, generation: generation)
        }
        return actions
    }

    /// The owner removed a subscription. A stop goes out only for an id the server knows.
    mutating func unsubscribeRequested(_ key: SubscriptionKey) -> [Action] {
        guard let removed = held.removeValue(forKey: key) else { return [] }
        guard case .connected(let generation, _) = phase else { return [] }
        switch removed.wire {
        case .pending:
            return []
        case .sent(let id):
            active[id] = .cancelled  // stopped once the server acknowledges it
            return []
        case .established(let id):
            active[id] = nil
            return [.send(generation: generation, .unsubscribe(id: id))]
        }
    }

    // MARK: Helpers shared by the other files

    /// Closes the current connection, if any; held subscriptions become pending.
    mutating func closeCurrent(code: WebSocketCloseCode, reason: String) -> [Action] {
        var actions: [Action] = []
        if let generation = currentGeneration {
            if settings.dialect == .graphQLWS, case .connected = phase {
                actions.append(.send(generation: generation, .terminate))
            }
            actions.append(.close(generation: generation, code: code, reason: reason))
        }
        resetWire()
        return actions
    }

    mutating func resetWire() {
        active.removeAll()
        for key in held.keys { held[key]?.wire = .pending }
    }

    mutating func startOpening(attempt: Int, tokenReason: TokenRequestReason) -> [Action] {
        generation += 1
        phase = .opening(generation: generation, attempt: attempt)
        return [
            .report(.connectionStateChanged(.connecting(attempt: attempt))),
            .open(generation: generation, tokenReason: tokenReason),
        ]
    }

    /// Sends the `start` of a held subscription on an acknowledged connection.
    mutating func sendStart(_ key: SubscriptionKey, generation: Int) -> [Action] {
        guard let entry = held[key], case .graphQL(let operation) = entry.request.target else { return [] }
        let id = makeID()
        active[id] = .serving(key)
        var actions: [Action] = [.send(generation: generation, .subscribe(id: id, operation: operation, authorization: nil))]
        if capabilities.acknowledgesStart {
            held[key]?.wire = .sent(id: id)
        } else {
            // No per-subscription acknowledgement in this dialect: a start sent on an acknowledged
            // connection counts as established (the server processes frames in order).
            held[key]?.wire = .established(id: id)
            actions.append(.report(.subscriptionEstablished(key)))
        }
        return actions
    }

    var isSignedIn: Bool { signedIn }
}
