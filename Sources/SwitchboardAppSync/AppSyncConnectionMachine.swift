import SwitchboardCore

/// The AppSync Events connection rules as a pure value: inputs are facts (a command, a frame, a
/// socket outcome, the current instant), outputs are actions the transport performs. It never
/// reads a clock or a random source; both are passed in.
struct AppSyncConnectionMachine<Instant: InstantProtocol> where Instant.Duration == Duration {
    enum Action: Equatable {
        /// Open socket `generation`; fetch the token for `reason`.
        case open(generation: Int, reason: TokenRequestReason)
        /// Send `connection_init` on `generation`.
        case sendInit(generation: Int)
        /// Send `subscribe` for `key` with wire id `id` (the transport adds the authorization).
        case sendSubscribe(generation: Int, key: SubscriptionKey, id: String, channel: String)
        /// Send `unsubscribe` for wire id `id`.
        case sendUnsubscribe(generation: Int, id: String)
        /// Close socket `generation`.
        case close(generation: Int, code: WebSocketCloseCode)
        /// Report to the owner.
        case emit(TransportEvent)
        /// Deliver these event payloads for `key`.
        case deliver(key: SubscriptionKey, events: [String])
    }

    private enum Phase: Equatable {
        case idle
        case connecting(attempt: Int)
        case awaitingAck(attempt: Int, deadline: Instant)
        case connected(keepAlive: Duration, deadline: Instant)
        case waiting(attempt: Int, until: Instant)
        case stopped
    }

    private enum SubscriptionPhase: Equatable {
        case pending
        case subscribing(id: String, unsubscribeWhenAcked: Bool)
        case established(id: String)
    }

    private struct Subscription {
        var channel: String
        var phase: SubscriptionPhase
    }

    let ackTimeout: Duration
    let policy: ReconnectPolicy
    private var phase = Phase.idle
    private var signedIn = false
    private var refreshedAfterRejection = false
    private(set) var generation = 0
    private var subscriptions: [SubscriptionKey: Subscription] = [:]
    private var order: [SubscriptionKey] = []
    private var byID: [String: SubscriptionKey] = [:]
    private var nextID = 0
    private let idPrefix: String

    init(ackTimeout: Duration, policy: ReconnectPolicy, idPrefix: String) {
        self.ackTimeout = ackTimeout
        self.policy = policy
        self.idPrefix = idPrefix
    }

    /// When the transport must call ``timerFired(at:random:)`` next, if at all.
    var nextDeadline: Instant? {
        switch phase {
        case .awaitingAck(_, let deadline), .connected(_, let deadline), .waiting(_, let deadline): deadline
        case .idle, .connecting, .stopped: nil
        }
    }

    // MARK: Commands

    mutating func connect() -> [Action] {
        let actions = closeCurrent(code: .normalClosure)
        signedIn = true
        refreshedAfterRejection = false
        resetSubscriptions()
        return actions + startConnecting(attempt: 1, reason: .connect)
    }

    mutating func disconnect() -> [Action] {
        var actions = closeCurrent(code: .normalClosure)
        signedIn = false
        resetSubscriptions()
        phase = .idle
        actions.append(.emit(.connectionStateChanged(.idle)))
        return actions
    }

    mutating func subscribe(key: SubscriptionKey, channel: String) -> [Action] {
        if subscriptions[key] != nil { return [] }
        subscriptions[key] = Subscription(channel: channel, phase: .pending)
        order.append(key)
        guard case .connected = phase else { return [] }
        return sendSubscribe(key)
    }

    mutating func unsubscribe(key: SubscriptionKey) -> [Action] {
        guard let subscription = subscriptions[key] else { return [] }
        switch subscription.phase {
        case .pending:
            remove(key)
            return []
        case .subscribing(let id, _):
            // Never unsubscribe before the server acknowledged the subscribe.
            subscriptions[key]?.phase = .subscribing(id: id, unsubscribeWhenAcked: true)
            return []
        case .established(let id):
            remove(key)
            return [.sendUnsubscribe(generation: generation, id: id)]
        }
    }

    // MARK: Socket facts

    mutating func opened(generation: Int, at now: Instant) -> [Action] {
        guard generation == self.generation, case .connecting(let attempt) = phase else { return [] }
        phase = .awaitingAck(attempt: attempt, deadline: now.advanced(by: ackTimeout))
        return [.sendInit(generation: generation)]
    }

    mutating func openFailed(
        generation: Int, error: SwitchboardError, authorization: Bool, at now: Instant, random: inout some RandomNumberGenerator
    ) -> [Action] {
        guard generation == self.generation, case .connecting = phase else { return [] }
        if authorization { return authorizationFailed(error, at: now, random: &random) }
        return connectionLost(.failed(error), error: error, at: now, random: &random)
    }

    mutating func closed(
        generation: Int, close: WebSocketClose?, error: SwitchboardError?, at now: Instant, random: inout some RandomNumberGenerator
    ) -> [Action] {
        guard generation == self.generation, isLive else { return [] }
        let failure = error ?? SwitchboardError(
            code: .network, message: "the server closed the connection (\(close.map { "\($0.code) \($0.reason)" } ?? "no close frame"))")
        let reason: ReconnectPolicy.Disconnect.Reason = close.map { .closed($0) } ?? .failed(failure)
        return connectionLost(reason, error: failure, at: now, random: &random)
    }

    mutating func received(
        _ message: AppSyncServerMessage, generation: Int, at now: Instant, random: inout some RandomNumberGenerator
    ) -> [Action] {
        guard generation == self.generation, isLive else { return [] }
        if case .connected(let keepAlive, _) = phase { phase = .connected(keepAlive: keepAlive, deadline: now.advanced(by: keepAlive)) }
        switch message {
        case .connectionAck(let timeoutMs):
            guard case .awaitingAck = phase else { return [] }
            let keepAlive = Duration.milliseconds(timeoutMs ?? 300_000)
            phase = .connected(keepAlive: keepAlive, deadline: now.advanced(by: keepAlive))
            refreshedAfterRejection = false
            var actions: [Action] = [.emit(.connectionStateChanged(.connected))]
            for key in order where subscriptions[key]?.phase == .pending { actions += sendSubscribe(key) }
            return actions
        case .connectionError(let errors):
            let error = SwitchboardError(code: .network, message: "the server refused the connection: \(describe(errors))")
            if errors.contains(where: \.isAuthorizationFailure) {
                return [.close(generation: generation, code: .normalClosure)] + authorizationFailed(error, at: now, random: &random)
            }
            return [.close(generation: generation, code: .normalClosure)]
                + connectionLost(.failed(error), error: error, at: now, random: &random)
        case .keepAlive:
            return []
        case .subscribeSuccess(let id):
            guard let key = byID[id], case .subscribing(_, let unsubscribe) = subscriptions[key]?.phase else { return [] }
            if unsubscribe {
                remove(key)
                return [.sendUnsubscribe(generation: generation, id: id)]
            }
            subscriptions[key]?.phase = .established(id: id)
            return [.emit(.subscriptionEstablished(key))]
        case .subscribeError(let id?, let errors) where byID[id] != nil:
            return subscriptionRejected(id, errors)
        case .error(let id?, let errors) where byID[id] != nil:
            return subscriptionRejected(id, errors)
        case .data(let id, let events):
            guard let key = byID[id], case .established = subscriptions[key]?.phase else { return [] }
            return [.deliver(key: key, events: events)]
        case .subscribeError(_, let errors), .broadcastError(_, let errors), .unsubscribeError(_, let errors),
            .publishError(_, let errors), .error(_, let errors):
            return [.emit(.error(SwitchboardError(code: .protocolViolation, message: "the server reported: \(describe(errors))")))]
        case .unsubscribeSuccess, .publishSuccess:
            return []
        }
    }

    /// A frame that could not be decoded: reported, nothing else changes (it still proves the
    /// connection is alive).
    mutating func receivedGarbage(_ error: SwitchboardError, generation: Int, at now: Instant) -> [Action] {
        guard generation == self.generation, isLive else { return [] }
        if case .connected(let keepAlive, _) = phase { phase = .connected(keepAlive: keepAlive, deadline: now.advanced(by: keepAlive)) }
        return [.emit(.error(error))]
    }

    mutating func timerFired(at now: Instant, random: inout some RandomNumberGenerator) -> [Action] {
        switch phase {
        case .awaitingAck(_, let deadline) where now >= deadline:
            let error = SwitchboardError(code: .timeout, message: "no connection_ack within \(ackTimeout)")
            return [.close(generation: generation, code: .goingAway)] + connectionLost(.failed(error), error: error, at: now, random: &random)
        case .connected(let keepAlive, let deadline) where now >= deadline:
            let error = SwitchboardError(code: .timeout, message: "no frame from the server within the keep-alive timeout of \(keepAlive)")
            return [.close(generation: generation, code: .goingAway)] + connectionLost(.failed(error), error: error, at: now, random: &random)
        case .waiting(let attempt, let until) where now >= until:
            return startConnecting(attempt: attempt, reason: .connect)
        default:
            return []
        }
    }

    // MARK: Helpers

    private var isLive: Bool {
        switch phase {
        case .connecting, .awaitingAck, .connected: true
        case .idle, .waiting, .stopped: false
        }
    }

    private mutating func startConnecting(attempt: Int, reason: TokenRequestReason) -> [Action] {
        generation += 1
        phase = .connecting(attempt: attempt)
        return [.emit(.connectionStateChanged(.connecting(attempt: attempt))), .open(generation: generation, reason: reason)]
    }

    private mutating func closeCurrent(code: WebSocketCloseCode) -> [Action] {
        let live = isLive
        let current = generation
        generation += 1  // frames from the old socket are stale from now on
        return live ? [.close(generation: current, code: code)] : []
    }

    private mutating func authorizationFailed(
        _ error: SwitchboardError, at now: Instant, random: inout some RandomNumberGenerator
    ) -> [Action] {
        resetSubscriptions()
        if !refreshedAfterRejection {
            refreshedAfterRejection = true
            let attempt: Int = if case .connecting(let attempt) = phase { attempt } else { 1 }
            return startConnecting(attempt: attempt, reason: .refreshAfterRejection)
        }
        phase = .stopped
        let expired = SwitchboardError(
            code: .sessionExpired, message: "the server refused the credentials twice (\(error.message))", cause: error)
        return [.emit(.connectionStateChanged(.disconnected(expired)))]
    }

    private mutating func connectionLost(
        _ reason: ReconnectPolicy.Disconnect.Reason, error: SwitchboardError, at now: Instant,
        random: inout some RandomNumberGenerator
    ) -> [Action] {
        let attempt: Int =
            switch phase {
            case .connecting(let attempt), .awaitingAck(let attempt, _): attempt
            default: 0
            }
        resetSubscriptions()
        let normal: Bool = if case .closed(let close) = reason { close.code == .normalClosure && subscriptions.isEmpty } else { false }
        let disconnect = ReconnectPolicy.Disconnect(reason, isSignedIn: signedIn, isNormal: normal)
        switch policy.decision(for: disconnect, attempt: attempt + 1, using: &random) {
        case .reconnect(let delay):
            phase = .waiting(attempt: attempt + 1, until: now.advanced(by: delay))
            return [.emit(.error(error)), .emit(.connectionStateChanged(.waitingToReconnect(attempt: attempt + 1, delay: delay)))]
        case .stop:
            phase = .stopped
            return [.emit(.connectionStateChanged(.disconnected(error)))]
        }
    }

    /// Every subscription goes back to pending: it is sent again, with a fresh id, on the next
    /// acknowledged connection. Ones waiting only to be unsubscribed are dropped.
    private mutating func resetSubscriptions() {
        for key in order {
            if case .subscribing(_, true) = subscriptions[key]?.phase { remove(key) } else { subscriptions[key]?.phase = .pending }
        }
        byID.removeAll()
    }

    private mutating func sendSubscribe(_ key: SubscriptionKey) -> [Action] {
        guard let subscription = subscriptions[key] else { return [] }
        nextID += 1
        let id = "\(idPrefix)-\(nextID)"
        byID[id] = key
        subscriptions[key]?.phase = .subscribing(id: id, unsubscribeWhenAcked: false)
        return [.sendSubscribe(generation: generation, key: key, id: id, channel: subscription.channel)]
    }

    private mutating func remove(_ key: SubscriptionKey) {
        switch subscriptions[key]?.phase {
        case .subscribing(let id, _), .established(let id): byID[id] = nil
        default: break
        }
        subscriptions[key] = nil
        order.removeAll { $0 == key }
    }

    private mutating func subscriptionRejected(_ id: String, _ errors: [AppSyncError]) -> [Action] {
        guard let key = byID[id] else { return [] }
        let wanted: Bool = if case .subscribing(_, true) = subscriptions[key]?.phase { false } else { true }
        remove(key)
        guard wanted else { return [] }
        return [.emit(.subscriptionFailed(key, SwitchboardError(code: .subscriptionRejected, message: describe(errors))))]
    }

    private func describe(_ errors: [AppSyncError]) -> String {
        errors.isEmpty ? "no details" : errors.map(\.description).joined(separator: "; ")
    }
}
