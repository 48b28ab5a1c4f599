import SwitchboardAppSync
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A transport that breaks the contract on purpose: it passes on everything a real transport
/// reports, except that after its first connection it stops reporting acknowledgements and
/// events, as a transport that forgot to subscribe again after a reconnect would.
final class ForgetfulTransport: EventTransport {
    let base: any EventTransport
    let events: TransportEvents
    private let continuation: TransportEvents.Continuation
    private let forwarding = Observed(false)

    init(_ base: any EventTransport) {
        self.base = base
        (events, continuation) = TransportEvents.makeStream()
    }

    var kind: TransportKind { base.kind }

    func run() async throws {
        let first = forwarding.update { started -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return try await base.run() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.forward() }
            try await base.run()
            try await group.waitForAll()
        }
    }

    private func forward() async {
        var connections = 0
        for await event in base.events {
            if event == .connectionStateChanged(.connected) { connections += 1 }
            switch event {
            case .subscriptionEstablished, .received, .subscriptionFailed: if connections > 1 { continue }
            default: break
            }
            continuation.yield(event)
        }
        continuation.finish()
    }

    func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        base.plan(streams: streams, identity: identity, namespace: namespace)
    }

    func connect(as identity: TransportIdentity) { base.connect(as: identity) }
    func disconnect() { base.disconnect() }
    func subscribe(_ request: SubscriptionRequest) throws { try base.subscribe(request) }
    func unsubscribe(_ key: SubscriptionKey) { base.unsubscribe(key) }

    func shutDown() {
        base.shutDown()
        // Shut down before it ran: nothing forwards, so finish here.
        if !forwarding.update({ $0 }) { continuation.finish() }
    }
}

/// A harness whose transports are ``ForgetfulTransport``s over scripted AppSync sockets.
struct ForgetfulHarness: TransportConformanceHarness {
    let scripted: ScriptedServerHarness

    func makeTransport() async throws -> any EventTransport { ForgetfulTransport(try await scripted.makeTransport()) }
    func identity(_ user: TransportConformance.User) -> TransportIdentity { scripted.identity(user) }
    func target(_ stream: TransportConformance.Stream, for user: TransportConformance.User) -> SubscriptionRequest.Target {
        scripted.target(stream, for: user)
    }
    func rejectedTarget(for user: TransportConformance.User) -> SubscriptionRequest.Target { scripted.rejectedTarget(for: user) }
    func deliver(_ marker: String, on stream: TransportConformance.Stream, for user: TransportConformance.User) async throws {
        try await scripted.deliver(marker, on: stream, for: user)
    }
    func dropConnections() async throws { try await scripted.dropConnections() }
    func rejectCredentials(_ reject: Bool) async throws { try await scripted.rejectCredentials(reject) }
}

@Suite("The conformance suite itself", .timeLimit(.minutes(2)))
struct ConformanceSuiteSelfTests {
    @Test("fails exactly the checks a transport that forgets its subscriptions after a reconnect breaks")
    func catchesAForgetfulTransport() async throws {
        try await ScriptedServerHarness.run(.appSyncEvents) { scripted in
            // The deadline bounds each wait for what a correct transport does (the first connect
            // included, which takes seconds when the whole suite starts at once, and a shut-down
            // run's return, which took over 5 s at a load of 15); the checks this transport
            // breaks wait it out.
            let suite = TransportConformance(harness: ForgetfulHarness(scripted: scripted), deadline: .seconds(10))
            let results = await suite.runAll()
            #expect(results.map(\.check) == TransportConformance.Check.allCases)
            let failed = results.compactMap { result -> TransportConformance.Check? in
                guard let failure = result.failure else { return nil }
                #expect(failure.check == result.check)
                #expect(failure.description.contains(result.check.rawValue))
                return result.check
            }
            #expect(failed == [
                .reconnectResubscribes, .rejectedSubscriptionIsNotResent, .disconnectStopsAndKeepsSubscriptions,
                .connectAsNewIdentityReplacesConnection,
            ])
        }
    }
}

/// A harness over scripted transports whose plans leave out one stream, for the planning check
/// (which neither connects nor needs a server).
struct GappyPlanHarness: TransportConformanceHarness {
    struct NoServer: Error {}

    func makeTransport() async throws -> any EventTransport {
        ScriptedTransport(kind: "gappy") { streams, identity, namespace in
            let served = streams.filter { $0.name != "archive" }
            return AppSyncEventsSubscriber.plan(streams: served, identity: identity, namespace: namespace)
        }
    }

    func identity(_ user: TransportConformance.User) -> TransportIdentity {
        TransportIdentity(userId: "gappy-\(user.rawValue)", orgId: "o1", tokens: .constant("t"))
    }

    func target(_ stream: TransportConformance.Stream, for user: TransportConformance.User) -> SubscriptionRequest.Target {
        .channel("vortex-app/user/gappy-\(user.rawValue)/\(stream == .first ? "roleChanged" : "archive/stateChanged")")
    }

    func rejectedTarget(for user: TransportConformance.User) -> SubscriptionRequest.Target {
        .channel("vortex-app/user/someone-else/roleChanged")
    }

    func deliver(_ marker: String, on stream: TransportConformance.Stream, for user: TransportConformance.User) async throws {
        throw NoServer()
    }

    func dropConnections() async throws { throw NoServer() }
    func rejectCredentials(_ reject: Bool) async throws { throw NoServer() }
}

@Suite("The conformance suite's planning check")
struct PlanningCheckSelfTests {
    @Test("fails a transport whose plan leaves a stream neither served nor failed, and passes the same plan whole")
    func catchesAGap() async throws {
        let failure = await #expect(throws: TransportConformanceFailure.self) {
            try await TransportConformance(harness: GappyPlanHarness()).run(.planCoversEveryStream)
        }
        #expect(failure?.description.contains("serves or fails each of them") == true)
        try await TransportConformance(harness: ScriptedTransportHarness(kind: .appsync)).run(.planCoversEveryStream)
    }
}
