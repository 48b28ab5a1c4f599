import SwitchboardCore

extension TransportConformance.Session {
    func subscribeEstablishesThenDelivers(_ group: inout TaskGroup<Void>) async throws {
        startRun(in: &group)
        try subscribe("early", to: .first)
        connect(.first)
        let connected = try await expectConnected()
        try await expectEstablished("early", after: connected)
        try subscribe("late", to: .second)
        try await expectEstablished("late", after: connected)
        let first = try await deliver(on: .first)
        let other = try await deliver(on: .second)
        let second = try await deliver(on: .first)
        let third = try await deliver(on: .first)
        try await expectDelivered([("early", first), ("late", other), ("early", second), ("early", third)])
        for key: SubscriptionKey in ["early", "late"] where events(from: 0).filter({ $0 == .subscriptionEstablished(key) }).count != 1 {
            throw failure(expected: "subscriptionEstablished(\(key)) once on one connection", observed: "it was reported more often")
        }
    }

    func unsubscribeStopsDelivery(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try subscribe("leaving", to: .first)
        try subscribe("staying", to: .second)
        try await expectEstablished("leaving")
        try await expectEstablished("staying")
        let before = try await deliver(on: .first)
        let other = try await deliver(on: .second)
        try await expectDelivered([("leaving", before), ("staying", other)])
        let unsubscribed = mark()
        transport.unsubscribe("leaving")
        transport.unsubscribe("never-subscribed")
        let after = try await deliver(on: .first)
        // The barrier: the server sends this after `after`, on the same connection.
        let barrier = try await deliver(on: .second)
        try await expectDelivered([("staying", barrier)])
        try expectNotReceived(after, "it was sent on the first stream after unsubscribe(leaving)")
        try expectNone("nothing more for the unsubscribed key", from: unsubscribed) { event in
            if case .received(let envelope) = event { envelope.subscription == "leaving" } else { false }
        }
    }

    func unsubscribeBeforeEstablished(_ group: inout TaskGroup<Void>) async throws {
        startRun(in: &group)
        // Removed before it could be sent.
        try subscribe("never-sent", to: .first)
        transport.unsubscribe("never-sent")
        try subscribe("kept", to: .second)
        connect(.first)
        try await expectEstablished("kept", after: try await expectConnected())
        let unsent = try await deliver(on: .first)
        let barrier = try await deliver(on: .second)
        try await expectDelivered([("kept", barrier)])
        try expectNotReceived(unsent, "its only subscription was removed before connecting")
        // Removed at once, most likely before the server acknowledged it.
        try subscribe("withdrawn", to: .first)
        transport.unsubscribe("withdrawn")
        let withdrawn = try await deliver(on: .first)
        let secondBarrier = try await deliver(on: .second)
        try await expectDelivered([("kept", secondBarrier)])
        try expectNotReceived(withdrawn, "its only subscription was removed right after subscribing")
        try expectNone("no event for a removed key", from: 0) { event in
            if case .received(let envelope) = event { envelope.subscription != "kept" } else { false }
        }
    }

    func rejectedSubscriptionFailsAlone(_ group: inout TaskGroup<Void>) async throws {
        let connected = try await startConnected(&group)
        try subscribe("accepted", to: .first)
        try await expectEstablished("accepted")
        try subscribe(SubscriptionRequest(key: "rejected", target: harness.rejectedTarget(for: .first)))
        let failed = try await expectRejection("rejected")
        let marker = try await deliver(on: .first)
        try await expectDelivered([("accepted", marker)])
        try expectNone("the connection to stay up while a subscription is rejected", from: connected + 1) { event in
            if case .connectionStateChanged = event { true } else { false }
        }
        try expectNone("no other subscription to fail", from: 0) { event in
            if case .subscriptionFailed(let key, _) = event { key != "rejected" } else { false }
        }
        try expectNone("the rejected subscription to fail once", from: failed + 1) { event in
            if case .subscriptionFailed("rejected", _) = event { true } else { false }
        }
    }

    func rejectedSubscriptionIsNeverEstablished(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try subscribe(SubscriptionRequest(key: "rejected", target: harness.rejectedTarget(for: .first)))
        let failed = try await expectRejection("rejected")
        // A dialect without acknowledgements reports a subscription established once it is sent,
        // and says so: then only the rejection is required.
        guard transport.acknowledgesSubscriptions else { return }
        try expectNone("no subscriptionEstablished for a subscription the server refused", from: 0, to: failed) { event in
            event == .subscriptionEstablished("rejected")
        }
    }

    func rejectedSubscriptionIsNotResent(_ group: inout TaskGroup<Void>) async throws {
        try await startConnected(&group)
        try subscribe("accepted", to: .first)
        try await expectEstablished("accepted")
        try subscribe(SubscriptionRequest(key: "rejected", target: harness.rejectedTarget(for: .first)))
        try await expectRejection("rejected")
        let dropped = mark()
        try await harnessStep("drop the connection") { try await self.harness.dropConnections() }
        let reconnected = try await expectConnected(after: dropped, "the server dropped the connection")
        try await expectEstablished("accepted", after: reconnected)
        // The barrier: subscribed after the reconnect, so after anything sent again at reconnect.
        try await subscribeAndReceive("later", to: .second, after: reconnected)
        try expectNone("the rejected subscription not to be sent again after the reconnect", from: dropped) { event in
            switch event {
            case .subscriptionEstablished("rejected"), .subscriptionFailed("rejected", _): true
            default: false
            }
        }
    }

    /// Subscribes `key` to `stream` of `user`, waits until it is established (at index `start` or
    /// later), and has one event delivered on it.
    /// - Returns: The event's marker.
    @discardableResult
    func subscribeAndReceive(
        _ key: SubscriptionKey, to stream: TransportConformance.Stream, of user: TransportConformance.User = .first,
        after start: Int = 0
    ) async throws -> String {
        try subscribe(key, to: stream, of: user)
        try await expectEstablished(key, after: start)
        let marker = try await deliver(on: stream, of: user)
        try await expectDelivered([(key, marker)])
        return marker
    }

    /// Waits for `subscriptionFailed(key, …)` and checks its code.
    /// - Returns: Its index.
    @discardableResult
    func expectRejection(_ key: SubscriptionKey) async throws -> Int {
        let index = try await expect("subscriptionFailed(\(key), subscriptionRejected)") { event in
            if case .subscriptionFailed(key, _) = event { true } else { false }
        }
        guard case .subscriptionFailed(_, let error) = log.value.events[index], error.code == .subscriptionRejected else {
            throw failure(expected: "subscriptionFailed(\(key)) with subscriptionRejected", observed: TransportConformanceFailure.describe(log.value.events[index]))
        }
        return index
    }
}
