import Foundation
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardGraphQL

/// An ``/SwitchboardCore/EventTransport`` for tests: it records every command and lets the test script what the
/// "server" does: acknowledge, reject, deliver events, drop the connection.
///
/// In ``Behavior/automatic`` mode it behaves like a healthy server: `connect` leads to
/// `connecting` then `connected`, and every held subscription is acknowledged once connected
/// (again after ``dropConnection(error:)``). In ``Behavior/manual`` mode it only records, and
/// the test emits every event itself with ``emit(_:)``.
///
/// With ``ServerRules`` the automatic server also checks what a real one checks, and the double
/// then passes the whole transport conformance suite (SwitchboardTesting's
/// `TransportConformance`): with ``ServerRules/fetchesTokens`` every connect, reconnects
/// included, fetches a token from the identity it connects as, and credentials refused with
/// ``refuseCredentials(_:)`` lead to one refreshed token and, refused again, to
/// `disconnected(sessionExpired)`; with ``ServerRules/refuses`` the server refuses the
/// subscriptions it names, which then fail with `subscriptionRejected` and are no longer held.
/// Token fetching happens in ``run()``, as in the real transports. The default rules keep the
/// double as simple as before: it connects at once without asking for a token, and acknowledges
/// every subscription.
///
/// It plans and delivers as the transport of its ``kind`` would: `graphql` with the legacy root
/// fields and results, any other kind with AppSync Events channels and payloads (or with the
/// planner it is given).
public final class ScriptedTransport: EventTransport {
    /// Plans subscriptions, as ``/SwitchboardCore/EventTransport/plan(streams:identity:namespace:)``.
    public typealias Planner = @Sendable (
        _ streams: Set<StreamAddress>, _ identity: TransportIdentity, _ namespace: String
    ) -> SubscriptionPlan

    /// A command the owner sent.
    public enum Command: Equatable, Sendable {
        case connect(userId: String, orgId: String)
        case disconnect
        case subscribe(SubscriptionRequest)
        case unsubscribe(SubscriptionKey)
        case shutDown
    }

    /// How much of the server's side the transport plays by itself.
    public enum Behavior: Sendable {
        /// Connects and acknowledges subscriptions by itself.
        case automatic
        /// Records only; the test emits every event.
        case manual
    }

    /// What the automatic server checks beyond accepting everything.
    public struct ServerRules: Sendable {
        /// Whether every connect, reconnects included, first fetches a token from the identity
        /// it connects as (reason `connect`), in ``run()``. Off by default: the double connects
        /// at once without asking the token provider.
        public var fetchesTokens: Bool
        /// Whether the server refuses a subscription: a refused one fails with
        /// `subscriptionRejected` instead of being acknowledged, and is no longer held. By
        /// default none is.
        public var refuses: @Sendable (SubscriptionRequest) -> Bool

        /// Creates rules.
        /// - Parameters:
        ///   - fetchesTokens: Whether connects fetch a token (and can be refused).
        ///   - refuses: Which subscriptions the server refuses.
        public init(fetchesTokens: Bool = false, refuses: @escaping @Sendable (SubscriptionRequest) -> Bool = { _ in false }) {
            self.fetchesTokens = fetchesTokens
            self.refuses = refuses
        }
    }

    /// A connect waiting for its token, and which connect it was (a later one supersedes it).
    private struct PendingConnect: Sendable {
        var identity: TransportIdentity
        var generation: Int
    }

    /// The server's side of authorization: the current connect, and whether credentials are refused.
    private struct Authorization {
        var generation = 0
        var refused = false
    }

    /// Everything the transport knows, for assertions and ``waitUntil(_:)``.
    public struct State: Sendable {
        /// Every command, in order.
        public var commands: [Command] = []
        /// The identity of the last `connect`, nil after `disconnect`.
        public var identity: TransportIdentity?
        /// Whether the (scripted) connection is up.
        public var isConnected = false
        /// The subscriptions held, by key.
        public var subscriptions: [SubscriptionKey: SubscriptionRequest] = [:]
        /// The held subscriptions that were acknowledged on the current connection.
        public var established: Set<SubscriptionKey> = []
        /// How many times a connection was established.
        public var connectionCount = 0
        /// Whether ``run()`` is running.
        public var isRunning = false
        /// Whether ``shutDown()`` was called.
        public var isShutDown = false
    }

    public let kind: TransportKind
    public let events: TransportEvents
    public let acknowledgesSubscriptions: Bool
    public let liveEventsCarryLogTimes: Bool
    private let continuation: TransportEvents.Continuation
    private let behavior: Behavior
    private let rules: ServerRules
    private let planner: Planner
    private let observed = Observed(State())
    private let authorization = LockedValue(Authorization())
    private let connects: AsyncStream<PendingConnect>
    private let connectsContinuation: AsyncStream<PendingConnect>.Continuation

    /// Creates a scripted transport.
    /// - Parameters:
    ///   - kind: The transport kind it pretends to be.
    ///   - behavior: Whether it connects and acknowledges by itself.
    ///   - acknowledgesSubscriptions: What it answers for
    ///     ``/SwitchboardCore/EventTransport/acknowledgesSubscriptions``: false plays a dialect without
    ///     per-subscription acknowledgements.
    ///   - liveEventsCarryLogTimes: What it answers for
    ///     ``/SwitchboardCore/EventTransport/liveEventsCarryLogTimes``: true (the default) lets a
    ///     catch-up start on the acknowledgements; false plays the legacy contract, whose
    ///     catch-ups let subscriptions settle first.
    ///   - rules: What the automatic server checks: tokens, refused subscriptions.
    ///   - planner: How it plans subscriptions; by default as `GraphQLSubscriber` for `graphql`
    ///     and as `AppSyncEventsSubscriber` for any other kind.
    public init(
        kind: TransportKind, behavior: Behavior = .automatic, acknowledgesSubscriptions: Bool = true,
        liveEventsCarryLogTimes: Bool = true, rules: ServerRules = ServerRules(), planner: Planner? = nil
    ) {
        self.kind = kind
        self.planner = planner ?? { streams, identity, namespace in
            kind == .graphql
                ? GraphQLSubscriber.plan(streams: streams, identity: identity)
                : AppSyncEventsSubscriber.plan(streams: streams, identity: identity, namespace: namespace)
        }
        self.acknowledgesSubscriptions = acknowledgesSubscriptions
        self.liveEventsCarryLogTimes = liveEventsCarryLogTimes
        self.behavior = behavior
        self.rules = rules
        (events, continuation) = TransportEvents.makeStream()
        (connects, connectsContinuation) = AsyncStream<PendingConnect>.makeStream()
    }

    /// A snapshot of the state.
    public var state: State { observed.value }

    /// Suspends until `predicate` holds for the state (or the task is cancelled).
    public func waitUntil(_ predicate: @escaping @Sendable (State) -> Bool) async {
        await observed.wait(until: predicate)
    }

    // MARK: EventTransport

    public func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        planner(streams, identity, namespace)
    }

    public func run() async throws {
        enum Start { case run, alreadyRunning, alreadyShutDown }
        let start = observed.update { state -> Start in
            if state.isRunning { return .alreadyRunning }
            if state.isShutDown { return .alreadyShutDown }
            state.isRunning = true
            return .run
        }
        switch start {
        case .alreadyRunning:
            throw SwitchboardError(code: .shutDown, message: "ScriptedTransport.run() is already running")
        case .alreadyShutDown:
            return  // shut down before it ran: like a real transport, there is nothing to do
        case .run:
            break
        }
        let connects = connects
        await withDiscardingTaskGroup { group in
            // Connects waiting for their token, one after the other; shutDown() ends them.
            group.addTask {
                for await pending in connects { await self.authorize(pending) }
            }
            await observed.wait { $0.isShutDown }
        }
        observed.update { $0.isRunning = false }
    }

    public func connect(as identity: TransportIdentity) {
        observed.update { state in
            state.commands.append(.connect(userId: identity.userId, orgId: identity.orgId))
            state.identity = identity
            state.isConnected = false
            state.established.removeAll()
        }
        supersedePendingConnect()
        guard behavior == .automatic else { return }
        emit(.connectionStateChanged(.connecting(attempt: 1)))
        establishConnection(as: identity)
    }

    public func disconnect() {
        observed.update { state in
            state.commands.append(.disconnect)
            state.identity = nil
            state.isConnected = false
            state.established.removeAll()
        }
        supersedePendingConnect()
        if behavior == .automatic { emit(.connectionStateChanged(.idle)) }
    }

    public func subscribe(_ request: SubscriptionRequest) throws {
        try validate(request)
        let connected = observed.update { state -> Bool in
            state.commands.append(.subscribe(request))
            state.subscriptions[request.key] = request
            return state.isConnected
        }
        if behavior == .automatic && connected { answer(request) }
    }

    public func unsubscribe(_ key: SubscriptionKey) {
        observed.update { state in
            state.commands.append(.unsubscribe(key))
            state.subscriptions[key] = nil
            state.established.remove(key)
        }
    }

    public func shutDown() {
        observed.update { [continuation] state in
            guard !state.isShutDown else { return }
            state.commands.append(.shutDown)
            state.isShutDown = true
            state.isConnected = false
            continuation.yield(.connectionStateChanged(.shutDown))
            continuation.finish()
        }
        connectsContinuation.finish()
    }

    // MARK: Scripting

    /// Emits an event as if the transport produced it.
    /// The event is in ``events`` before any ``waitUntil(_:)`` caller sees the state change.
    public func emit(_ event: TransportEvent) {
        observed.update { [continuation] state in
            switch event {
            case .connectionStateChanged(.connected):
                state.isConnected = true
                state.connectionCount += 1
            case .connectionStateChanged:
                state.isConnected = false
                state.established.removeAll()
            case .subscriptionEstablished(let key):
                state.established.insert(key)
            case .subscriptionFailed(let key, _):
                state.subscriptions[key] = nil
                state.established.remove(key)
            case .received, .error:
                break
            }
            // Enqueued in the same step as the state change, so a test that waits for the
            // state and then reads the events always finds this event there.
            continuation.yield(event)
        }
    }

    /// Makes the automatic server refuse the credentials of every connect from now on (`true`),
    /// or accept them again (`false`). Refused credentials matter with
    /// ``ServerRules/fetchesTokens`` only.
    /// - Parameter refuse: Whether to refuse.
    public func refuseCredentials(_ refuse: Bool) {
        authorization.withLock { $0.refused = refuse }
    }

    /// Acknowledges a held subscription.
    public func acknowledge(_ key: SubscriptionKey) { emit(.subscriptionEstablished(key)) }

    /// Rejects a held subscription with the server's message.
    public func reject(_ key: SubscriptionKey, message: String) {
        emit(.subscriptionFailed(key, SwitchboardError(code: .subscriptionRejected, message: message)))
    }

    /// Delivers a raw JSON payload on a subscription, as the transport of ``kind`` would hand it on.
    /// - Parameters:
    ///   - payload: The JSON text as it arrives on the wire: AppSync Events, the event; GraphQL,
    ///     a result's `data` object, which becomes an envelope exactly as `GraphQLSubscriber` makes
    ///     it (unwrapped, legacy names mapped, `eventType`s named; a null result delivers nothing).
    ///   - key: The subscription it arrives on.
    ///   - receivedAt: The receive time to stamp.
    public func deliver(_ payload: String, on key: SubscriptionKey, receivedAt: Date = Date()) {
        if kind == .graphql {
            guard case .event(let envelope) = LegacyResults.envelope(
                from: Data(payload.utf8), subscription: key, receivedAt: receivedAt) else { return }
            emit(.received(envelope))
        } else {
            emit(.received(EventEnvelope(subscription: key, payload: Data(payload.utf8), receivedAt: receivedAt, transport: kind)))
        }
    }

    /// Drops the connection. In automatic mode the transport reconnects at once (after fetching a
    /// token, with ``ServerRules/fetchesTokens``) and acknowledges every held subscription again.
    /// - Parameter error: The error the drop is reported with.
    public func dropConnection(error: SwitchboardError = SwitchboardError(code: .network, message: "connection dropped")) {
        emit(.error(error))
        supersedePendingConnect()
        emit(.connectionStateChanged(.connecting(attempt: 1)))
        if behavior == .automatic, let identity = state.identity { establishConnection(as: identity) }
    }

    /// Connects at once, or, with ``ServerRules/fetchesTokens``, once ``run()`` has fetched
    /// the identity's token.
    private func establishConnection(as identity: TransportIdentity) {
        guard rules.fetchesTokens else {
            connected()
            return
        }
        let generation = authorization.withLock { $0.generation }
        connectsContinuation.yield(PendingConnect(identity: identity, generation: generation))
    }

    /// The connection is up: every held subscription is answered.
    private func connected() {
        emit(.connectionStateChanged(.connected))
        for (_, request) in state.subscriptions.sorted(by: { $0.key < $1.key }) { answer(request) }
    }

    /// Acknowledges a held subscription, or refuses it if the rules say so.
    private func answer(_ request: SubscriptionRequest) {
        if rules.refuses(request) {
            reject(request.key, message: "ScriptedTransport: the scripted server refuses this subscription")
        } else {
            acknowledge(request.key)
        }
    }

    /// A later connect, a disconnect or a drop makes a connect still waiting for its token stale.
    private func supersedePendingConnect() {
        authorization.withLock { $0.generation += 1 }
    }

    private func isCurrent(_ pending: PendingConnect) -> Bool {
        authorization.withLock { $0.generation == pending.generation } && !state.isShutDown
    }

    /// Fetches the connect's token and presents it: refused, one refreshed token; refused again,
    /// the session expired.
    private func authorize(_ pending: PendingConnect) async {
        guard isCurrent(pending) else { return }
        do {
            _ = try await pending.identity.tokens.token(for: .connect)
            if authorization.withLock({ $0.refused }) {
                guard isCurrent(pending) else { return }
                _ = try await pending.identity.tokens.token(for: .refreshAfterRejection)
                if authorization.withLock({ $0.refused }) {
                    expire(pending, SwitchboardError(
                        code: .sessionExpired,
                        message: "ScriptedTransport: the scripted server refused the credentials, also after one refresh"))
                    return
                }
            }
        } catch {
            expire(pending, SwitchboardError(code: .sessionExpired, message: "the token provider failed", cause: error))
            return
        }
        guard isCurrent(pending) else { return }
        connected()
    }

    private func expire(_ pending: PendingConnect, _ error: SwitchboardError) {
        guard isCurrent(pending) else { return }
        emit(.error(error))
        emit(.connectionStateChanged(.disconnected(error)))
    }

    private func validate(_ request: SubscriptionRequest) throws {
        if state.isShutDown { throw SwitchboardError(code: .shutDown, message: "the transport is shut down") }
        switch (kind == .graphql, request.target) {
        case (false, .channel(let channel)):
            _ = try ChannelPath(channel, allowWildcard: true)
        case (true, .graphQL):
            break
        default:
            throw SwitchboardError(
                code: .invalidConfiguration, message: "a \(kind) transport cannot subscribe to \(request.target)")
        }
    }
}
