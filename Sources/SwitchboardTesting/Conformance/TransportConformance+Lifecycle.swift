import Switchboard
import SwitchboardCore

extension TransportConformance.Session {
    /// Runs one check's steps.
    func run(_ check: TransportConformance.Check, group: inout TaskGroup<Void>) async throws {
        switch check {
        case .runReturnsAfterShutDown: try await runReturnsAfterShutDown(&group)
        case .runReturnsWhenCancelled: try await runReturnsWhenCancelled()
        case .shutDownBeforeRunReturnsAtOnce: try await shutDownBeforeRunReturnsAtOnce(&group)
        case .secondRunThrowsShutDown: try await secondRunThrowsShutDown(&group)
        case .eventsFinishAfterShutDown: try await eventsFinishAfterShutDown(&group)
        case .subscribeAfterShutDownThrows: try await subscribeAfterShutDownThrows(&group)
        case .invalidTargetsThrow: try invalidTargetsThrow()
        case .planCoversEveryStream: try planCoversEveryStream()
        case .connectReportsConnectingThenConnected: try await connectReportsConnectingThenConnected(&group)
        case .connectFetchesFreshTokens: try await connectFetchesFreshTokens(&group)
        case .subscribeEstablishesThenDelivers: try await subscribeEstablishesThenDelivers(&group)
        case .unsubscribeStopsDelivery: try await unsubscribeStopsDelivery(&group)
        case .unsubscribeBeforeEstablished: try await unsubscribeBeforeEstablished(&group)
        case .reconnectResubscribes: try await reconnectResubscribes(&group)
        case .rejectedSubscriptionFailsAlone: try await rejectedSubscriptionFailsAlone(&group)
        case .rejectedSubscriptionIsNeverEstablished: try await rejectedSubscriptionIsNeverEstablished(&group)
        case .rejectedSubscriptionIsNotResent: try await rejectedSubscriptionIsNotResent(&group)
        case .authFailureRefreshesOnceThenExpires: try await authFailureRefreshesOnceThenExpires(&group)
        case .authFailureRecoversWithRefreshedToken: try await authFailureRecoversWithRefreshedToken(&group)
        case .disconnectStopsAndKeepsSubscriptions: try await disconnectStopsAndKeepsSubscriptions(&group)
        case .connectAsNewIdentityReplacesConnection: try await connectAsNewIdentityReplacesConnection(&group)
        }
    }

    /// Runs the transport and connects as the first user.
    /// - Returns: The index of the `connected` event.
    @discardableResult
    func startConnected(_ group: inout TaskGroup<Void>) async throws -> Int {
        startRun(in: &group)
        connect(.first)
        return try await expectConnected()
    }

    /// Shuts the transport down and waits until every `run()` returned; each must have returned
    /// without throwing.
    func shutDownAndExpectRunsReturned(_ why: String = "after shutDown()") async throws {
        transport.shutDown()
        guard await waitUntil({ $0.runEnds.count == $0.runsStarted }) else {
            throw failure(expected: "run() to return \(why)", observed: "it was still running after \(deadline)")
        }
        if let thrown = log.value.runEnds.first(where: { $0 != .returned }) {
            throw failure(expected: "run() to return without throwing \(why)", observed: "it ended with \(thrown)")
        }
    }

    // MARK: Checks

    private func runReturnsAfterShutDown(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try await shutDownAndExpectRunsReturned()
    }

    private func runReturnsWhenCancelled() async throws {
        // `run()` in a group of its own, so that cancelling it touches nothing else.
        try await withThrowingTaskGroup(of: Void.self) { running in
            log.update { $0.runsStarted += 1 }
            running.addTask { await self.runTransport() }
            connect(.first)
            try await expectConnected()
            running.cancelAll()
            guard await waitUntil({ $0.runEnds.count == $0.runsStarted }) else {
                transport.shutDown()
                throw failure(expected: "run() to return when its task is cancelled", observed: "it was still running after \(deadline)")
            }
        }
    }

    private func shutDownBeforeRunReturnsAtOnce(_ group: inout TaskGroup<Void>) async throws {
        transport.shutDown()
        startRun(in: &group)
        try await shutDownAndExpectRunsReturned("at once when shutDown() came first")
        guard await waitUntil(\.finished) else {
            throw failure(expected: "events to finish after shutDown()", observed: "they had not finished after \(deadline)")
        }
    }

    private func secondRunThrowsShutDown(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        startRun(in: &group)
        guard await waitUntil({ !$0.runEnds.isEmpty }) else {
            throw failure(expected: "the second run() to throw shutDown at once", observed: "neither run() returned within \(deadline)")
        }
        guard case .threw(.shutDown?, _) = log.value.runEnds[0] else {
            throw failure(expected: "the second run() to throw shutDown", observed: "a run() ended with \(log.value.runEnds[0])")
        }
        transport.shutDown()
        guard await waitUntil({ $0.runEnds.count == 2 }) else {
            throw failure(expected: "the first run() to return after shutDown()", observed: "it was still running after \(deadline)")
        }
        guard log.value.runEnds[1] == .returned else {
            throw failure(expected: "the first run() to return without throwing", observed: "it ended with \(log.value.runEnds[1])")
        }
    }

    private func eventsFinishAfterShutDown(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try subscribe("events-finish", to: .first)
        try await expectEstablished("events-finish")
        transport.shutDown()
        guard await waitUntil(\.finished) else {
            throw failure(expected: "events to finish after shutDown()", observed: "they had not finished after \(deadline)")
        }
        let last = states(from: 0).last
        guard last == .shutDown else {
            throw failure(expected: "the last state reported to be shutDown", observed: "it was \(last.map { "\($0)" } ?? "none")")
        }
    }

    private func subscribeAfterShutDownThrows(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try await shutDownAndExpectRunsReturned()
        let request = SubscriptionRequest(key: "after-shut-down", target: harness.target(.first, for: .first))
        try expectThrow(.shutDown, "subscribe() after shutDown()") { try transport.subscribe(request) }
    }

    /// What the transport subscribes to is read from the harness's own target: a transport that
    /// subscribes to channels must check them; one that subscribes to GraphQL operations must refuse
    /// a channel.
    private func invalidTargetsThrow() throws {
        let channel = "vortex-app/user/u1/roleChanged"
        let operation = GraphQLOperation(query: "subscription { subscribeRoleChange(userId: \"u1\") { reason } }")
        switch harness.target(.first, for: .first) {
        case .channel:
            for invalid in ["", "vortex-app/user/not valid/x", "a/b/c/d/e/f", "vortex-app/user_1/x"] {
                try expectThrow(.invalidChannel, "subscribe() to the channel \"\(invalid)\"") {
                    try transport.subscribe(SubscriptionRequest(key: "invalid", target: .channel(invalid)))
                }
            }
            try expectThrow(.invalidConfiguration, "subscribe() to a GraphQL operation on a \(transport.kind) transport") {
                try transport.subscribe(SubscriptionRequest(key: "other-kind", target: .graphQL(operation)))
            }
        case .graphQL:
            try expectThrow(.invalidConfiguration, "subscribe() to a channel on a \(transport.kind) transport") {
                try transport.subscribe(SubscriptionRequest(key: "other-kind", target: .channel(channel)))
            }
        }
    }

    /// Plans the catalog's streams (all of them, one alone, and a family with its merged stream)
    /// for the first user and subscribes each plan's requests before connecting.
    private func planCoversEveryStream() throws {
        let identity = harness.identity(.first)
        let all = Set(StreamCatalog.all.map(\.address))
        let sets: [Set<StreamAddress>] = [
            all, Set(all.filter { $0.name == "devicePresence" }), Set(all.filter { $0.family == "device" }),
        ]
        for streams in sets {
            let plan = transport.plan(streams: streams, identity: identity, namespace: "vortex-app")
            let names = "the streams \(streams.sorted().map(\.name).joined(separator: ", "))"
            guard transport.plan(streams: streams, identity: identity, namespace: "vortex-app") == plan else {
                throw failure(expected: "the same plan twice for \(names)", observed: "two different plans")
            }
            var served: Set<String> = []
            for (key, subscription) in plan.subscriptions {
                guard subscription.request.key == key else {
                    throw failure(expected: "each planned request under its own key", observed: "\(subscription.request.key) under \(key)")
                }
                served.formUnion(subscription.serves)
            }
            let wanted = Set(streams.map(\.name))
            let covered = served.union(plan.failures.keys)
            guard covered == wanted else {
                throw failure(
                    expected: "a plan for \(names) that serves or fails each of them and no other",
                    observed: "it covers \(covered.sorted().joined(separator: ", "))")
            }
            guard plan.failures.isEmpty else {
                throw failure(
                    expected: "no failure for \(names) of \(identity)",
                    observed: "\(plan.failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })")
            }
            for key in plan.subscriptions.keys.sorted() {
                guard let request = plan.subscriptions[key]?.request else { continue }
                do {
                    try transport.subscribe(request)
                } catch {
                    throw failure(expected: "subscribe() to accept the planned \(request.target)", observed: "it threw \(error)")
                }
                transport.unsubscribe(key)
            }
        }
    }

    /// Fails unless `body` throws a ``SwitchboardError`` with `code`.
    func expectThrow(_ code: SwitchboardError.Code, _ what: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SwitchboardError where error.code == code {
            return
        } catch {
            throw failure(expected: "\(what) to throw \(code)", observed: "it threw \(error)")
        }
        throw failure(expected: "\(what) to throw \(code)", observed: "it did not throw")
    }
}
