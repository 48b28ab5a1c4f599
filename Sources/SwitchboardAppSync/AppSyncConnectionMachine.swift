import SwitchboardCore

/// The AppSync Events connection rules as a pure value: inputs are facts (a command, a frame, a
/// socket outcome, the current instant), outputs are actions the transport performs. It never
/// reads a clock or a random source; both are passed in.
///
/// Besides the current connection it may hold two more sockets for a short while, both for the
/// make-before-break replacement before AppSync's 24 h limit (see `+Rotation`): a *candidate*
/// that is being connected and subscribed, and, once the candidate took over, the *retiring*
/// old socket that is drained until the server closes it. Publishes over the socket are in
/// `+Publish`.
struct AppSyncConnectionMachine {
    /// A client frame, before the transport adds the authorization.
    enum Outbound: Equatable, Sendable {
        /// `connection_init`.
        case connectionInit
        /// `subscribe` for `key` with wire id `id`.
        case subscribe(key: SubscriptionKey, id: String, channel: String)
        /// `unsubscribe` for wire id `id`.
        case unsubscribe(id: String)
        /// `publish` with wire id `id`.
        case publish(id: String, channel: String, events: [String])
    }

    /// The AppSync-only actions.
    enum Extra: Equatable, Sendable {
        /// Answer the publish with wire id `id`.
        case completePublish(id: String, Result<AppSyncPublishResult, SwitchboardError>)
        /// The candidate `to` took over from `from` (for logs and metrics).
        case replaced(from: ConnectionID, to: ConnectionID)
    }

    /// The shared vocabulary: `.deliver` carries the event texts of one `data` frame.
    typealias Action = DriverAction<Outbound, AppSyncEvents, Extra>

    enum Phase: Equatable {
        case idle
        case connecting(attempt: Int)
        case awaitingAck(attempt: Int, deadline: Duration)
        case connected(keepAlive: Duration, deadline: Duration)
        case waiting(attempt: Int, until: Duration)
        case stopped
    }

    enum SubscriptionPhase: Equatable {
        case pending
        case subscribing(id: String, unsubscribeWhenAcked: Bool)
        case established(id: String)
    }

    struct Subscription {
        var channel: String
        var phase: SubscriptionPhase
    }

    let ackTimeout: Duration
    let policy: ReconnectPolicy
    /// How long a connection is used before it is replaced; nil keeps it until it ends.
    let connectionLifetime: Duration?
    /// How long to wait before trying again when a replacement failed.
    let replacementRetryDelay: Duration
    var phase = Phase.idle
    var signedIn = false
    var refreshedAfterRejection = false
    /// The current socket (or the last one, while there is none). Its frames, and those of a
    /// candidate or retiring socket, are told apart by id; an abandoned socket's never arrive
    /// (the driver drops them).
    var current: ConnectionID = 0
    private var lastConnection: ConnectionID = 0
    var subscriptions: [SubscriptionKey: Subscription] = [:]
    var order: [SubscriptionKey] = []
    var byID: [String: SubscriptionKey] = [:]
    private var nextID = 0
    private let idPrefix: String

    /// When the current connection is to be replaced.
    var replaceAt: Duration?
    /// The replacement being connected and subscribed, if any.
    var candidate: Candidate?
    /// The replaced socket, drained until it closes.
    var retiring: Retiring?
    /// Events the old socket delivered while two sockets overlap, not yet matched by their copy
    /// from the new one (see `+Rotation`).
    var overlap: [OverlapKey: Int] = [:]
    /// The new socket's events, held until the old socket has closed.
    var held: [(key: SubscriptionKey, events: AppSyncEvents)] = []
    /// When the overlap's late copies stop being matched.
    var overlapExpiry: Duration?
    /// The last candidate's credentials were refused: the next one asks for fresh ones.
    var replacementCredentialsRefused = false
    /// How long a candidate may take, after its acknowledgement, to have every subscription answered.
    let replacementSubscribeTimeout: Duration
    /// How long after the old socket closed its events are still matched against late copies
    /// from the new one.
    let overlapGrace: Duration

    /// The connection check waiting for its pong, if any (see `+Check`).
    var check: ConnectionCheck?

    /// Publishes waiting for a connection or an answer, and their order.
    var publishes: [String: PendingPublish] = [:]
    var publishOrder: [String] = []

    init(
        ackTimeout: Duration, policy: ReconnectPolicy, idPrefix: String, connectionLifetime: Duration? = nil,
        replacementRetryDelay: Duration = .seconds(60), overlapGrace: Duration = .seconds(10),
        replacementSubscribeTimeout: Duration = .seconds(30)
    ) {
        self.replacementSubscribeTimeout = replacementSubscribeTimeout
        self.overlapGrace = overlapGrace
        self.ackTimeout = ackTimeout
        self.policy = policy
        self.idPrefix = idPrefix
        self.connectionLifetime = connectionLifetime
        self.replacementRetryDelay = replacementRetryDelay
    }

    /// When the driver must call ``timerFired(at:random:)`` next, if at all.
    /// Asked after every frame, so it allocates nothing.
    var nextDeadline: Duration? {
        var earliest: Duration?
        func consider(_ deadline: Duration) {
            if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        switch phase {
        case .awaitingAck(_, let deadline), .connected(_, let deadline), .waiting(_, let deadline): consider(deadline)
        case .idle, .connecting, .stopped: break
        }
        if let replaceAt, candidate == nil, case .connected = phase { consider(replaceAt) }
        switch candidate?.stage {
        case .awaitingAck(let deadline)?, .subscribing(_, let deadline)?: consider(deadline)
        default: break
        }
        for publish in publishes.values { consider(publish.deadline) }
        if let overlapExpiry { consider(overlapExpiry) }
        if let check = activeCheck { consider(check.deadline) }
        return earliest
    }

    // MARK: Commands

    mutating func connect() -> [Action] {
        var actions = closeCurrent(code: .normalClosure)
        // Publishes belong to the identity that asked for them.
        actions += failPublishes(SwitchboardError(
            code: .network, message: "the transport connected as another identity before the publish was answered")) { _ in true }
        signedIn = true
        refreshedAfterRejection = false
        resetSubscriptions()
        actions += startConnecting(attempt: 1, reason: .connect)
        return actions
    }

    mutating func disconnect() -> [Action] {
        var actions = closeCurrent(code: .normalClosure)
        signedIn = false
        resetSubscriptions()
        phase = .idle
        actions += failPublishes(SwitchboardError(code: .network, message: "the transport disconnected before the publish was answered")) { _ in true }
        actions.append(.report(.connectionStateChanged(.idle)))
        return actions
    }

    mutating func subscribe(key: SubscriptionKey, channel: String) -> [Action] {
        if case .subscribing(let id, true)? = subscriptions[key]?.phase {
            // Subscribed again while the unsubscribe waited for the acknowledgement: keep it.
            subscriptions[key]?.phase = .subscribing(id: id, unsubscribeWhenAcked: false)
            return resubscribeOnCandidate(key)
        }
        if subscriptions[key] != nil { return [] }
        subscriptions[key] = Subscription(channel: channel, phase: .pending)
        order.append(key)
        guard case .connected = phase else { return [] }
        return sendSubscribe(key) + subscribeOnCandidate(key)
    }

    mutating func unsubscribe(key: SubscriptionKey) -> [Action] {
        guard let subscription = subscriptions[key] else { return [] }
        switch subscription.phase {
        case .pending:
            remove(key)
            return forgetOnCandidate(key)
        case .subscribing(let id, _):
            // Never unsubscribe before the server acknowledged the subscribe.
            subscriptions[key]?.phase = .subscribing(id: id, unsubscribeWhenAcked: true)
            return forgetOnCandidate(key)
        case .established(let id):
            remove(key)
            return [.send(current, .unsubscribe(id: id))] + forgetOnCandidate(key)
        }
    }

    // MARK: Socket facts

    mutating func opened(_ connection: ConnectionID, at now: Duration) -> [Action] {
        if connection == candidate?.id { return candidateOpened(at: now) }
        guard case .connecting(let attempt) = phase else { return [] }
        phase = .awaitingAck(attempt: attempt, deadline: now + ackTimeout)
        return [.send(current, .connectionInit)]
    }

    mutating func openFailed(
        _ connection: ConnectionID, _ failure: ConnectFailure, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action] {
        let error = failure.error
        if connection == candidate?.id {
            replacementCredentialsRefused = failure.isAuthorization
            return abandonReplacement(error, at: now, closing: false)
        }
        guard case .connecting = phase else { return [] }
        if failure.isAuthorization { return authorizationFailed(error, at: now, random: &random) }
        if error.code == .invalidConfiguration {
            // A URL or setting the connector refuses (such as ws:// to a remote host) will be
            // refused again: stop instead of retrying.
            resetSubscriptions()
            phase = .stopped
            return dropOverlap() + failPublishes(error) { _ in true } + [.report(.connectionStateChanged(.disconnected(error)))]
        }
        return connectionLost(.failed(error), error: error, at: now, random: &random)
    }

    mutating func closed(
        _ connection: ConnectionID, close: WebSocketClose?, error: (any Error)?, at now: Duration,
        random: inout some RandomNumberGenerator
    ) -> [Action] {
        let cause: SwitchboardError? =
            switch error {
            case nil: nil
            case let error as SwitchboardError: error
            case let error?: SwitchboardError(code: .network, message: "the connection failed", cause: SendableErrorBox(error))
            }
        let failure = cause ?? SwitchboardError(
            code: .network, message: "the server closed the connection (\(close.map { "\($0.code) \($0.reason)" } ?? "no close frame"))")
        if connection == candidate?.id { return abandonReplacement(failure, at: now, closing: false) }
        if connection == retiring?.id { return retired(at: now) }
        guard isLive else { return [] }
        let reason: ReconnectPolicy.Disconnect.Reason = close.map { .closed($0) } ?? .failed(failure)
        return connectionLost(reason, error: failure, at: now, random: &random)
    }

    mutating func received(
        _ message: AppSyncServerMessage, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action] {
        var actions: [Action] = []
        received(message, on: connection, at: now, random: &random, into: &actions)
        return actions
    }

    /// A frame of the current socket, which is live (its keep-alive deadline already moved).
    mutating func receivedOnCurrent(_ message: AppSyncServerMessage, at now: Duration, random: inout some RandomNumberGenerator) -> [Action] {
        switch message {
        case .connectionAck(let timeoutMs):
            guard case .awaitingAck = phase else { return [] }
            let keepAlive = Duration.milliseconds(timeoutMs ?? 300_000)
            phase = .connected(keepAlive: keepAlive, deadline: now + keepAlive)
            replaceAt = connectionLifetime.map { now + $0 }
            refreshedAfterRejection = false
            var actions: [Action] = [.report(.connectionStateChanged(.connected))]
            for key in order where subscriptions[key]?.phase == .pending { actions += sendSubscribe(key) }
            return actions + sendQueuedPublishes(at: now)
        case .connectionError(let errors):
            let error = SwitchboardError(code: .network, message: "the server refused the connection: \(describe(errors))")
            if errors.contains(where: \.isAuthorizationFailure) {
                return [.close(current, code: .normalClosure, reason: "")] + authorizationFailed(error, at: now, random: &random)
            }
            return [.close(current, code: .normalClosure, reason: "")]
                + connectionLost(.failed(error), error: error, at: now, random: &random)
        case .keepAlive:
            return []
        case .subscribeSuccess(let id):
            guard let key = byID[id], case .subscribing(_, let unsubscribe) = subscriptions[key]?.phase else { return [] }
            if unsubscribe {
                remove(key)
                return [.send(current, .unsubscribe(id: id))]
            }
            subscriptions[key]?.phase = .established(id: id)
            return [.report(.subscriptionEstablished(key))]
        case .subscribeError(let id?, let errors) where byID[id] != nil:
            return subscriptionRejected(id, errors)
        case .error(let id?, let errors) where byID[id] != nil:
            return subscriptionRejected(id, errors)
        case .data(let id, let events):
            guard let key = byID[id], case .established = subscriptions[key]?.phase else { return [] }
            return deliver(key: key, events: events, from: current)
        case .publishSuccess(let id, _) where publishes[id] != nil, .publishError(let id?, _) where publishes[id] != nil,
            .error(let id?, _) where publishes[id] != nil:
            return answerPublish(message)
        case .subscribeError(_, let errors), .broadcastError(_, let errors), .unsubscribeError(_, let errors),
            .publishError(_, let errors), .error(_, let errors):
            return [.report(.error(SwitchboardError(code: .protocolViolation, message: "the server reported: \(describe(errors))")))]
        case .unsubscribeSuccess, .publishSuccess:
            return []
        }
    }

    /// The transport could not send the subscribe for `key` on `connection` (no token or
    /// credentials). On the current socket the subscription ends, reported with `error`; on a
    /// candidate the replacement is given up and tried again later.
    mutating func subscribeNotSent(key: SubscriptionKey, on connection: ConnectionID, _ error: SwitchboardError, at now: Duration) -> [Action] {
        if connection == candidate?.id { return abandonReplacement(error, at: now) }
        guard case .subscribing(let id, let unsubscribe)? = subscriptions[key]?.phase,
            byID[id] == key
        else { return [] }
        remove(key)
        let actions = forgetOnCandidate(key)
        return unsubscribe ? actions : actions + [.report(.subscriptionFailed(key, error))]
    }

    /// A frame that could not be decoded: reported, nothing else changes (it still proves the
    /// connection is alive). One from a candidate or retiring socket is not reported.
    mutating func receivedGarbage(_ error: SwitchboardError, on connection: ConnectionID, at now: Duration) -> [Action] {
        guard connection != candidate?.id, connection != retiring?.id, isLive else { return [] }
        if case .connected(let keepAlive, _) = phase { phase = .connected(keepAlive: keepAlive, deadline: now + keepAlive) }
        return [.report(.error(error))]
    }

    mutating func timerFired(at now: Duration, random: inout some RandomNumberGenerator) -> [Action] {
        let actions: [Action]
        if let check = activeCheck, now >= check.deadline {
            actions = checkFailed(ConnectionCheckFailure.noPong(within: check.timeout), at: now)
        } else {
            actions = phaseTimer(at: now, random: &random)
        }
        overlapTimer(at: now)
        return actions + replacementTimers(at: now) + publishTimeouts(at: now)
    }

    private mutating func phaseTimer(at now: Duration, random: inout some RandomNumberGenerator) -> [Action] {
        let actions: [Action]
        switch phase {
        case .awaitingAck(_, let deadline) where now >= deadline:
            let error = SwitchboardError.connectionTimeout(.connectionAck, "no connection_ack within \(ackTimeout.secondsDescription)")
            actions = [.close(current, code: .goingAway, reason: "")] + connectionLost(.failed(error), error: error, at: now, random: &random)
        case .connected(let keepAlive, let deadline) where now >= deadline:
            let error = SwitchboardError.connectionTimeout(.keepAlive, "no frame from the server within \(keepAlive.secondsDescription)")
            actions = [.close(current, code: .goingAway, reason: "")] + connectionLost(.failed(error), error: error, at: now, random: &random)
        case .waiting(let attempt, let until) where now >= until:
            actions = startConnecting(attempt: attempt, reason: .connect)
        default:
            actions = []
        }
        return actions
    }

    // MARK: Helpers

    var isLive: Bool {
        switch phase {
        case .connecting, .awaitingAck, .connected: true
        case .idle, .waiting, .stopped: false
        }
    }

    /// A new socket id.
    mutating func nextConnection() -> ConnectionID {
        lastConnection = lastConnection.next
        return lastConnection
    }

    /// A new wire id.
    mutating func nextWireID(_ kind: String = "") -> String {
        nextID += 1
        return "\(idPrefix)-\(kind)\(nextID)"
    }
}
