import SwitchboardCore

/// Replacing the connection before AppSync's 24 h limit, make-before-break.
///
/// `connectionLifetime` after an acknowledgement, a *candidate* socket is opened beside the
/// current one, initialised, and every held subscription is subscribed on it with fresh ids.
/// Only once each has been answered does the candidate become the current connection; the old
/// one is then closed and *retires*: it is read until the server's close, since data frames it
/// sent before the close still count. While two sockets overlap, the same subscription may
/// receive one event on both, and the server writes each socket on its own, so their frames
/// interleave in any order. The old socket's events are delivered as they come; the new
/// socket's are held until the old one has closed, then delivered unless the old one already
/// did: each event once, in publish order (`deliver(key:events:from:)`).
///
/// If the candidate fails (refused, timed out, closed), the current connection carries on and
/// the replacement is tried again after `replacementRetryDelay`. If the current connection
/// ends during a replacement, the candidate is dropped and the usual reconnect takes over.
extension AppSyncConnectionMachine {
    struct Candidate: Equatable {
        enum Stage: Equatable {
            case connecting
            case awaitingAck(deadline: Duration)
            case subscribing(keepAlive: Duration, deadline: Duration)
        }

        var id: ConnectionID
        var stage = Stage.connecting
        /// The candidate's wire ids.
        var ids: [String: SubscriptionKey] = [:]
        /// Subscribed on the candidate, not answered yet.
        var waiting: Set<SubscriptionKey> = []
        /// Unsubscribed meanwhile: sent `unsubscribe` once the candidate acknowledges them.
        var dropWhenAcked: Set<SubscriptionKey> = []
    }

    struct Retiring: Equatable {
        var id: ConnectionID
        var ids: [String: SubscriptionKey]
    }

    /// One event text on one subscription.
    struct OverlapKey: Hashable {
        var key: SubscriptionKey
        var event: AppSyncEvent
    }

    // MARK: Timers

    /// Starts a replacement when it is due; gives up on a candidate whose ack is late.
    mutating func replacementTimers(at now: Duration) -> [Action] {
        switch candidate?.stage {
        case .awaitingAck(let deadline)? where now >= deadline:
            return abandonReplacement(SwitchboardError.connectionTimeout(.connectionAck, "no connection_ack within \(ackTimeout.secondsDescription)"), at: now)
        case .subscribing(_, let deadline)? where now >= deadline:
            return abandonReplacement(SwitchboardError(code: .timeout, message: "the subscriptions were not all answered within \(replacementSubscribeTimeout)"), at: now)
        default:
            break
        }
        guard let due = replaceAt, now >= due, candidate == nil, retiring == nil, case .connected = phase else { return [] }
        replaceAt = nil
        let next = nextConnection()
        candidate = Candidate(id: next)
        let reason: TokenRequestReason = replacementCredentialsRefused ? .refreshAfterRejection : .connect
        return [.openReplacement(next, reason: reason)]
    }

    // MARK: The candidate

    mutating func candidateOpened(at now: Duration) -> [Action] {
        guard let candidate, candidate.stage == .connecting else { return [] }
        let deadline = now + ackTimeout
        self.candidate?.stage = .awaitingAck(deadline: deadline)
        return [.send(candidate.id, .connectionInit)]
    }

    mutating func receivedOnCandidate(_ message: AppSyncServerMessage, at now: Duration) -> [Action] {
        guard let candidate else { return [] }
        switch message {
        case .connectionAck(let timeoutMs):
            guard case .awaitingAck = candidate.stage else { return [] }
            replacementCredentialsRefused = false
            let deadline = now + replacementSubscribeTimeout
            self.candidate?.stage = .subscribing(keepAlive: .milliseconds(timeoutMs ?? 300_000), deadline: deadline)
            var actions: [Action] = []
            for key in order { actions += subscribeOnCandidate(key) }
            return actions + promoteIfReady(at: now)
        case .connectionError(let errors):
            replacementCredentialsRefused = errors.contains(where: \.isAuthorizationFailure)
            return abandonReplacement(SwitchboardError(code: .network, message: "the server refused the connection: \(describe(errors))"), at: now)
        case .subscribeSuccess(let id):
            guard let key = candidate.ids[id], candidate.waiting.contains(key) else { return [] }
            self.candidate?.waiting.remove(key)
            var actions: [Action] = []
            if candidate.dropWhenAcked.contains(key) {
                self.candidate?.ids[id] = nil
                self.candidate?.dropWhenAcked.remove(key)
                actions.append(.send(candidate.id, .unsubscribe(id: id)))
            }
            return actions + promoteIfReady(at: now)
        case .subscribeError(let id?, let errors), .error(let id?, let errors):
            guard let key = candidate.ids[id] else { return [] }
            // Refused now: the subscription ends, as it would on a reconnect.
            self.candidate?.ids[id] = nil
            self.candidate?.waiting.remove(key)
            var actions: [Action] = []
            if !candidate.dropWhenAcked.contains(key), subscriptions[key] != nil {
                if case .established(let current)? = subscriptions[key]?.phase {
                    actions.append(.send(self.current, .unsubscribe(id: current)))
                }
                remove(key)
                actions.append(.report(.subscriptionFailed(key, SwitchboardError(code: .subscriptionRejected, message: describe(errors)))))
            }
            self.candidate?.dropWhenAcked.remove(key)
            return actions + promoteIfReady(at: now)
        case .data(let id, let events):
            guard let key = candidate.ids[id], !candidate.dropWhenAcked.contains(key), subscriptions[key] != nil else { return [] }
            return deliver(key: key, events: events, from: candidate.id)
        default:
            return []
        }
    }

    /// Subscribes `key` on a candidate that is past its acknowledgement.
    mutating func subscribeOnCandidate(_ key: SubscriptionKey) -> [Action] {
        guard let candidate, case .subscribing = candidate.stage, let subscription = subscriptions[key] else { return [] }
        if case .subscribing(_, true) = subscription.phase { return [] }
        guard !candidate.ids.values.contains(key) else { return [] }
        let id = nextWireID()
        self.candidate?.ids[id] = key
        self.candidate?.waiting.insert(key)
        return [.send(candidate.id, .subscribe(key: key, id: id, channel: subscription.channel))]
    }

    /// `key` was subscribed again while the candidate was to drop it: keep it there too.
    mutating func resubscribeOnCandidate(_ key: SubscriptionKey) -> [Action] {
        guard candidate != nil else { return [] }
        if candidate?.dropWhenAcked.remove(key) != nil { return [] }
        return subscribeOnCandidate(key)
    }

    /// Takes `key` off the candidate (it was unsubscribed or refused on the current socket).
    mutating func forgetOnCandidate(_ key: SubscriptionKey) -> [Action] {
        guard let candidate, let id = candidate.ids.first(where: { $0.value == key })?.key else { return [] }
        if candidate.waiting.contains(key) {
            self.candidate?.dropWhenAcked.insert(key)
            return []
        }
        self.candidate?.ids[id] = nil
        return [.send(candidate.id, .unsubscribe(id: id))]
    }

    private mutating func promoteIfReady(at now: Duration) -> [Action] {
        guard let candidate, case .subscribing(let keepAlive, _) = candidate.stage, candidate.waiting.isEmpty else { return [] }
        let old = current
        retiring = Retiring(id: old, ids: byID)
        current = candidate.id
        check = nil
        self.candidate = nil
        byID = [:]
        var actions: [Action] = [.transport(.replaced(from: old, to: current)), .retire(old, code: .normalClosure)]
        for key in order {
            if case .subscribing(_, true) = subscriptions[key]?.phase {
                remove(key)  // unsubscribed while its first subscribe was unanswered; the old socket closes anyway
            } else if let id = candidate.ids.first(where: { $0.value == key })?.key {
                byID[id] = key
                if case .established = subscriptions[key]?.phase {} else {
                    // First answered on the new socket (subscribed during the replacement).
                    actions.append(.report(.subscriptionEstablished(key)))
                }
                subscriptions[key]?.phase = .established(id: id)
            } else {
                subscriptions[key]?.phase = .pending
            }
        }
        phase = .connected(keepAlive: keepAlive, deadline: now + keepAlive)
        replaceAt = connectionLifetime.map { now + $0 }
        for key in order where subscriptions[key]?.phase == .pending {
            let id = nextWireID()
            byID[id] = key
            subscriptions[key]?.phase = .subscribing(id: id, unsubscribeWhenAcked: false)
            actions.append(.send(current, .subscribe(key: key, id: id, channel: subscriptions[key]?.channel ?? "")))
        }
        return actions
    }

    /// The candidate failed: close it, keep the current connection, try again later.
    mutating func abandonReplacement(_ error: SwitchboardError, at now: Duration, closing: Bool = true) -> [Action] {
        guard let candidate else { return [] }
        self.candidate = nil
        // The current socket carried everything the candidate held back.
        held.removeAll()
        overlap.removeAll()
        replaceAt = now + replacementRetryDelay
        let failure = SwitchboardError(
            code: error.code, message: "replacing the connection before its lifetime ends failed; trying again in \(replacementRetryDelay)",
            cause: error)
        return (closing ? [.close(candidate.id, code: .normalClosure, reason: "")] : []) + [.report(.error(failure))]
    }

    // MARK: The retiring socket

    mutating func receivedOnRetiring(_ message: AppSyncServerMessage) -> [Action] {
        guard let retiring else { return [] }
        switch message {
        case .data(let id, let events):
            guard let key = retiring.ids[id], subscriptions[key] != nil else { return [] }
            return deliver(key: key, events: events, from: retiring.id)
        case .publishSuccess(let id, _) where publishes[id] != nil, .publishError(let id?, _) where publishes[id] != nil,
            .error(let id?, _) where publishes[id] != nil:
            return answerPublish(message)
        default:
            return []
        }
    }

    /// The retiring socket closed: what the new socket held back is delivered, except what the
    /// old one already delivered. The new socket's copies of old events may still be on their way,
    /// so those are matched for `overlapGrace` more, and only then forgotten.
    mutating func retired(at now: Duration) -> [Action] {
        guard let retiring else { return [] }
        self.retiring = nil
        var actions: [Action] = []
        for (key, events) in held where subscriptions[key] != nil {
            let fresh = AppSyncEvents(events.filter { !matchesOldDelivery(key: key, event: $0) })
            if !fresh.isEmpty { actions.append(.deliver(key, fresh)) }
        }
        held.removeAll()
        if !overlap.isEmpty { overlapExpiry = now + overlapGrace }
        return actions + failPublishes(SwitchboardError(
            code: .network, message: "the replaced connection closed before the publish was answered; the events may or may not have been published"
        )) { $0 == retiring.id }
    }

    /// Closes a candidate and a retiring socket, if any, and forgets the overlap.
    mutating func dropOverlap() -> [Action] {
        var actions: [Action] = []
        if let candidate { actions.append(.close(candidate.id, code: .normalClosure, reason: "")) }
        if let retiring {
            actions.append(.close(retiring.id, code: .normalClosure, reason: ""))
            actions += failPublishes(SwitchboardError(
                code: .network, message: "the connection ended before the publish was answered; the events may or may not have been published"
            )) { $0 == retiring.id }
        }
        candidate = nil
        retiring = nil
        held.removeAll()
        overlap.removeAll()
        overlapExpiry = nil
        return actions
    }

    /// Forgets the overlap once its grace period is over.
    mutating func overlapTimer(at now: Duration) {
        guard let expiry = overlapExpiry, now >= expiry else { return }
        overlap.removeAll()
        overlapExpiry = nil
    }

    // MARK: Delivery

    /// Delivers `events` for `key` from socket `connection`. While two sockets overlap, the
    /// older one's events go out at once and are remembered; the newer one's are held until the
    /// older has closed (see `retired(at:)`). Afterwards, during the grace period, a late copy of
    /// an event the old socket delivered is dropped once. Identical texts on one socket are
    /// separate events.
    mutating func deliver(key: SubscriptionKey, events: AppSyncEvents, from connection: ConnectionID) -> [Action] {
        var actions: [Action] = []
        deliver(key: key, events: events, from: connection, into: &actions)
        return actions
    }

    /// ``deliver(key:events:from:)``, appending to `actions`.
    mutating func deliver(key: SubscriptionKey, events: AppSyncEvents, from connection: ConnectionID, into actions: inout [Action]) {
        let older = retiring?.id ?? (candidate == nil ? nil : current)
        if connection == older {
            for event in events { overlap[OverlapKey(key: key, event: event), default: 0] += 1 }
            actions.append(.deliver(key, events))
            return
        }
        if older != nil {
            held.append((key, events))
            return
        }
        let fresh = overlap.isEmpty ? events : AppSyncEvents(events.filter { !matchesOldDelivery(key: key, event: $0) })
        if !fresh.isEmpty { actions.append(.deliver(key, fresh)) }
    }

    /// Whether the old socket delivered this event and its copy is now consumed.
    private mutating func matchesOldDelivery(key: SubscriptionKey, event: AppSyncEvent) -> Bool {
        let overlapKey = OverlapKey(key: key, event: event)
        guard let count = overlap[overlapKey] else { return false }
        overlap[overlapKey] = count > 1 ? count - 1 : nil
        return true
    }
}
