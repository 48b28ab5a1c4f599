import Switchboard
import Testing

@Suite("Subscription table")
struct SubscriptionTableTests {
    func planned(_ key: SubscriptionKey, _ serves: Set<StreamID>) -> (SubscriptionKey, PlannedSubscription) {
        (key, PlannedSubscription(request: SubscriptionRequest(key: key, target: .channel(key.rawValue)), serves: serves))
    }

    func plan(_ entries: (SubscriptionKey, PlannedSubscription)...) -> [SubscriptionKey: PlannedSubscription] {
        Dictionary(uniqueKeysWithValues: entries)
    }

    @Test("replacing a subscription keeps the old one serving until the new one is acknowledged")
    func makeBeforeBreak() {
        var table = SubscriptionTable()
        let exact = planned("a/x", ["presence"])
        let wildcard = planned("a/*", ["presence", "device"])
        #expect(table.apply(plan(exact)) == [.subscribe(exact.1.request)])
        #expect(table.established("a/x").isEmpty)
        #expect(table.streams(servedBy: "a/x") == ["presence"])

        #expect(table.apply(plan(wildcard)) == [.subscribe(wildcard.1.request)])
        #expect(table.streams(servedBy: "a/x") == ["presence"], "old one still serves presence")
        #expect(table.streams(servedBy: "a/*") == ["device"])

        #expect(table.established("a/*") == [.unsubscribe("a/x")])
        #expect(table.streams(servedBy: "a/*") == ["presence", "device"])
        #expect(table.streams(servedBy: "a/x").isEmpty)
    }

    @Test("a subscription nobody needs is dropped at once")
    func dropUnneeded() {
        var table = SubscriptionTable()
        let a = planned("a", ["role"])
        _ = table.apply(plan(a))
        _ = table.established("a")
        #expect(table.apply([:]) == [.unsubscribe("a")])
        #expect(table.entries.isEmpty)
    }

    @Test("an unacknowledged old subscription does not hold up the switch")
    func unacknowledgedOld() {
        var table = SubscriptionTable()
        _ = table.apply(plan(planned("a/x", ["presence"])))
        #expect(table.apply(plan(planned("a/*", ["presence"]))).contains(.unsubscribe("a/x")))
    }

    @Test("a rejection is not retried on the same connection, but is after a reconnect")
    func rejection() {
        var table = SubscriptionTable()
        let a = planned("a", ["role"])
        _ = table.apply(plan(a))
        let result = table.rejected("a")
        #expect(result.streams == ["role"])
        #expect(table.apply(plan(a)).isEmpty)
        _ = table.connectionLost()
        #expect(table.apply(plan(a)) == [.subscribe(a.1.request)])
    }

    @Test("a rejected replacement leaves the working subscription serving until the connection changes")
    func rejectedReplacement() {
        var table = SubscriptionTable()
        let exact = planned("a/x", ["presence"])
        let wildcard = planned("a/*", ["presence", "device"])
        _ = table.apply(plan(exact))
        _ = table.established("a/x")
        #expect(table.apply(plan(wildcard)) == [.subscribe(wildcard.1.request)])

        let result = table.rejected("a/*")
        #expect(result.streams == ["presence", "device"])
        #expect(result.commands.isEmpty, "the exact channel still works and must not be unsubscribed")
        #expect(table.streams(servedBy: "a/x") == ["presence"])
        #expect(table.apply(plan(wildcard)).isEmpty, "not retried on the same connection")
        #expect(table.streams(servedBy: "a/x") == ["presence"])

        // Once nobody wants presence any more, the old subscription goes.
        #expect(table.apply([:]) == [.unsubscribe("a/x")])

        // After a reconnect the replacement is tried again.
        _ = table.connectionLost()
        #expect(table.apply(plan(wildcard)) == [.subscribe(wildcard.1.request)])
    }

    @Test("a lost connection drops subscriptions being replaced and unacknowledges the rest")
    func connectionLost() {
        var table = SubscriptionTable()
        _ = table.apply(plan(planned("a/x", ["presence"])))
        _ = table.established("a/x")
        _ = table.apply(plan(planned("a/*", ["presence"])))
        #expect(table.connectionLost() == [.unsubscribe("a/x")])
        #expect(table.entries["a/*"]?.established == false)
        #expect(table.streams(servedBy: "a/*") == ["presence"])
    }

    @Test("removeAll unsubscribes everything")
    func removeAll() {
        var table = SubscriptionTable()
        _ = table.apply(plan(planned("a", ["role"]), planned("b", ["plan"])))
        #expect(table.removeAll() == [.unsubscribe("a"), .unsubscribe("b")])
        #expect(table.entries.isEmpty)
    }
}
