import SwitchboardCore

/// How the connection machine starts a connection, loses one, and keeps its subscriptions in
/// step: the helpers its commands, socket facts and timers share.
extension AppSyncConnectionMachine {
    mutating func startConnecting(attempt: Int, reason: TokenRequestReason) -> [Action] {
        current = nextConnection()
        phase = .connecting(attempt: attempt)
        check = nil
        return [.report(.connectionStateChanged(.connecting(attempt: attempt))), .open(current, reason: reason)]
    }

    mutating func closeCurrent(code: WebSocketCloseCode) -> [Action] {
        // Closed, the socket is forgotten: the driver drops whatever it still delivers.
        (isLive ? [.close(current, code: code, reason: "")] : []) + dropOverlap()
    }

    mutating func authorizationFailed(
        _ error: SwitchboardError, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action] {
        resetSubscriptions()
        var actions = dropOverlap()
        if !refreshedAfterRejection {
            refreshedAfterRejection = true
            let attempt: Int = if case .connecting(let attempt) = phase { attempt } else { 1 }
            return actions + startConnecting(attempt: attempt, reason: .refreshAfterRejection)
        }
        phase = .stopped
        let expired = SwitchboardError(
            code: .sessionExpired, message: "the server refused the credentials twice (\(error.message))", cause: error)
        actions += failPublishes(expired) { _ in true }
        return actions + [.report(.connectionStateChanged(.disconnected(expired)))]
    }

    mutating func connectionLost(
        _ reason: ReconnectPolicy.Disconnect.Reason, error: SwitchboardError, at now: Duration,
        random: inout some RandomNumberGenerator
    ) -> [Action] {
        let attempt: Int =
            switch phase {
            case .connecting(let attempt), .awaitingAck(let attempt, _): attempt
            default: 0
            }
        let lost = current
        resetSubscriptions()
        var actions = dropOverlap()
        actions += failPublishes(SwitchboardError(
            code: .network, message: "the connection ended before the publish was answered; the events may or may not have been published",
            cause: error)) { $0 == lost }
        let normal: Bool = if case .closed(let close) = reason { close.code == .normalClosure && subscriptions.isEmpty } else { false }
        let step = ReconnectStep.afterLoss(
            reason, isNormal: normal, signedIn: signedIn, attempt: attempt, reported: error, stopError: error,
            policy: policy, now: now, random: &random)
        switch step.next {
        case .reconnect(let attempt, let until):
            phase = .waiting(attempt: attempt, until: until)
        case .stop:
            phase = .stopped
            actions += failPublishes(error) { _ in true }
        }
        return actions + step.reports.map(Action.report)
    }

    /// Every subscription goes back to pending: it is sent again, with a fresh id, on the next
    /// acknowledged connection. Ones waiting only to be unsubscribed are dropped.
    mutating func resetSubscriptions() {
        for key in order {
            if case .subscribing(_, true) = subscriptions[key]?.phase { remove(key) } else { subscriptions[key]?.phase = .pending }
        }
        byID.removeAll()
        replaceAt = nil
    }

    mutating func sendSubscribe(_ key: SubscriptionKey) -> [Action] {
        guard let subscription = subscriptions[key] else { return [] }
        let id = nextWireID()
        byID[id] = key
        subscriptions[key]?.phase = .subscribing(id: id, unsubscribeWhenAcked: false)
        return [.send(current, .subscribe(key: key, id: id, channel: subscription.channel))]
    }

    mutating func remove(_ key: SubscriptionKey) {
        switch subscriptions[key]?.phase {
        case .subscribing(let id, _), .established(let id): byID[id] = nil
        default: break
        }
        subscriptions[key] = nil
        order.removeAll { $0 == key }
    }

    mutating func subscriptionRejected(_ id: String, _ errors: [AppSyncError]) -> [Action] {
        guard let key = byID[id] else { return [] }
        let wanted: Bool = if case .subscribing(_, true) = subscriptions[key]?.phase { false } else { true }
        remove(key)
        let actions = forgetOnCandidate(key)
        guard wanted else { return actions }
        return actions + [.report(.subscriptionFailed(key, SwitchboardError(code: .subscriptionRejected, message: describe(errors))))]
    }

    func describe(_ errors: [AppSyncError]) -> String {
        errors.isEmpty ? "no details" : errors.map(\.description).joined(separator: "; ")
    }
}
