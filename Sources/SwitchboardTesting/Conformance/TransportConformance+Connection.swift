import SwitchboardCore

extension TransportConformance.Session {
    func connectReportsConnectingThenConnected(_ group: inout TaskGroup<Void>) async throws {
        let connected = try await startConnected(&group)
        let states = states(from: 0, to: connected + 1)
        guard states == [.connecting(attempt: 1), .connected] else {
            throw failure(expected: "the states connecting(attempt: 1), connected", observed: "\(states)")
        }
    }

    func connectFetchesFreshTokens(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try expectConnectFetches(.first, 1, "one connect")
        let dropped = mark()
        try await harnessStep("drop the connection") { try await self.harness.dropConnections() }
        try await expectConnected(after: dropped, "the server dropped the connection")
        try expectConnectFetches(.first, 2, "a connect and a reconnect")
        let replaced = mark()
        connect(.second)
        try await expectConnected(after: replaced, "connect(as:) with the second user")
        try expectConnectFetches(.second, 1, "one connect as the second user")
        try expectConnectFetches(.first, 2, "a connect and a reconnect, and none after the second user connected")
    }

    /// Fails unless `user`'s provider was asked exactly `count` times for a `connect` token.
    func expectConnectFetches(_ user: TransportConformance.User, _ count: Int, _ what: String) throws {
        let fetches = connectFetches(user)
        guard fetches == Array(repeating: .connect, count: count) else {
            throw failure(
                expected: "\(count) token fetch(es) with reason connect from the \(user) for \(what)",
                observed: "the fetches \(describe(fetches))")
        }
    }

    func reconnectResubscribes(_ group: inout TaskGroup<Void>) async throws {
        startRun(in: &group)
        try subscribe("held-1", to: .first)
        try subscribe("held-2", to: .second)
        connect(.first)
        let connected = try await expectConnected()
        try await expectEstablished("held-1", after: connected)
        try await expectEstablished("held-2", after: connected)
        let before = try await deliver(on: .first)
        try await expectDelivered([("held-1", before)])
        let dropped = mark()
        try await harnessStep("drop the connection") { try await self.harness.dropConnections() }
        let reconnected = try await expectConnected(after: dropped, "the server dropped the connection")
        let states = states(from: dropped, to: reconnected + 1)
        guard states.suffix(2) == [.connecting(attempt: 1), .connected],
            states.dropLast(2).allSatisfy({ if case .waitingToReconnect = $0 { true } else { false } })
        else {
            throw failure(
                expected: "after the drop: waitingToReconnect, then connecting(attempt: 1) and connected",
                observed: "the states \(states)")
        }
        try await expectEstablished("held-1", after: reconnected)
        try await expectEstablished("held-2", after: reconnected)
        let first = try await deliver(on: .first)
        let second = try await deliver(on: .second)
        try await expectDelivered([("held-1", before), ("held-1", first), ("held-2", second)])
    }

    func authFailureRefreshesOnceThenExpires(_ group: inout TaskGroup<Void>) async throws {
        try await harnessStep("reject credentials") { try await self.harness.rejectCredentials(true) }
        startRun(in: &group)
        connect(.first)
        let expired = try await expectState("disconnected(sessionExpired) after refused credentials") { state in
            if case .disconnected(let error?) = state { error.code == .sessionExpired } else { false }
        }
        let before = states(from: 0, to: expired)
        guard !before.isEmpty, before.allSatisfy({ if case .connecting = $0 { true } else { false } }) else {
            throw failure(expected: "only connecting states before disconnected(sessionExpired)", observed: "\(before)")
        }
        guard connectFetches(.first) == [.connect, .refreshAfterRejection] else {
            throw failure(
                expected: "one token fetch with connect, then exactly one with refreshAfterRejection",
                observed: "the fetches \(describe(connectFetches(.first)))")
        }
        // The barrier: a connect as another user, which subscribes and receives. A transport that
        // went on trying as the first user would have reported it before this connect, or
        // fetched another token of the first user's by the time the event arrives.
        try await harnessStep("accept credentials again") { try await self.harness.rejectCredentials(false) }
        let retried = mark()
        connect(.second)
        let connected = try await expectConnected(after: retried, "connect(as:) with the second user")
        try await subscribeAndReceive("barrier", to: .first, of: .second, after: connected)
        let between = states(from: expired + 1, to: connected)
        guard between == [.connecting(attempt: 1)] else {
            throw failure(
                expected: "no connect attempt after disconnected(sessionExpired) until the next connect(as:)",
                observed: "the states \(between) between them")
        }
        guard connectFetches(.first) == [.connect, .refreshAfterRejection] else {
            throw failure(
                expected: "no further token fetch for the first user after disconnected(sessionExpired)",
                observed: "the fetches \(describe(connectFetches(.first)))")
        }
    }

    func authFailureRecoversWithRefreshedToken(_ group: inout TaskGroup<Void>) async throws {
        try await harnessStep("reject credentials") { try await self.harness.rejectCredentials(true) }
        acceptCredentialsOnRefresh.withLock { $0 = true }
        startRun(in: &group)
        connect(.first)
        let connected = try await expectConnected(after: 0, "a refused token and a refreshed one the server accepts")
        let before = states(from: 0, to: connected)
        guard before.allSatisfy({ if case .connecting = $0 { true } else { false } }) else {
            throw failure(expected: "only connecting states before connected", observed: "the states \(before)")
        }
        guard connectFetches(.first) == [.connect, .refreshAfterRejection] else {
            throw failure(
                expected: "one token fetch with connect, then one with refreshAfterRejection",
                observed: "the fetches \(describe(connectFetches(.first)))")
        }
        try await subscribeAndReceive("after-refresh", to: .first, after: connected)
    }

    func disconnectStopsAndKeepsSubscriptions(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        let before = try await subscribeAndReceive("kept", to: .first)
        let requested = mark()
        transport.disconnect()
        let stopped = try await expectState("idle (or disconnected without an error) after disconnect()", after: requested) { state in
            state == .idle || state == .disconnected(nil)
        }
        // The barrier: the next connect(as:). Anything the transport did by itself after the
        // disconnect was decided before this connect's connecting state.
        let again = mark()
        connect(.first)
        let connected = try await expectConnected(after: again, "connect(as:) after disconnect()")
        let between = states(from: stopped + 1, to: connected)
        guard between == [.connecting(attempt: 1)] else {
            throw failure(
                expected: "no reconnect after disconnect(): only the next connect(as:)'s connecting(attempt: 1)",
                observed: "the states \(between)")
        }
        try await expectEstablished("kept", after: connected)
        let after = try await deliver(on: .first)
        try await expectDelivered([("kept", before), ("kept", after)])
    }

    func connectAsNewIdentityReplacesConnection(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try await subscribeAndReceive("first-user", to: .first)
        // As an owner does when the user changes: unsubscribe, connect as the new user, subscribe.
        transport.unsubscribe("first-user")
        let replaced = mark()
        connect(.second)
        let connected = try await expectConnected(after: replaced, "connect(as:) with the second user")
        let between = states(from: replaced, to: connected + 1)
        guard between.last == .connected, between.dropLast().allSatisfy({ if case .connecting = $0 { true } else { false } }),
            between.contains(.connecting(attempt: 1))
        else {
            throw failure(
                expected: "the states connecting(attempt: 1), connected when the identity is replaced",
                observed: "the states \(between)")
        }
        try await subscribeAndReceive("second-user", to: .first, of: .second, after: connected)
        try expectNone("no event for the first user's subscription after it was replaced", from: replaced) { event in
            if case .received(let envelope) = event { envelope.subscription == "first-user" } else { false }
        }
    }
}
