import Foundation
import Switchboard
import SwitchboardTesting
import Testing

@Suite("BackendNotifier errors and subscription changes", .timeLimit(.minutes(1)))
struct BackendNotifierErrorTests {
    @Test("a rejected subscription reports the server's message and leaves the others working")
    func rejectedSubscription() async throws {
        try await NotifierHarness.run(.appsync, behavior: .manual) { h in
            var errors = await h.notifier.errors().makeAsyncIterator()
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            let archive = await h.notifier.archiveValues()
            h.session.update(NotifierHarness.signedIn())
            let archiveKey = NotifierHarness.channel("archive/stateChanged")
            let roleKey = NotifierHarness.channel("roleChanged")
            await h.transport.waitUntil { $0.subscriptions.count == 2 }
            h.transport.emit(.connectionStateChanged(.connected))
            h.transport.reject(archiveKey, message: "Unauthorized: not your channel")
            h.transport.acknowledge(roleKey)

            let error = try #require(await errors.next())
            #expect(error.code == .subscriptionRejected)
            #expect(error.message == "Unauthorized: not your channel")
            h.transport.deliver(AppSyncPayload.role("still here"), on: roleKey)
            #expect(await roles.next()?.reason == "still here")
            #expect(h.transport.state.subscriptions.keys.contains(archiveKey) == false)
            withExtendedLifetime(archive) {}
        }
    }

    @Test("a userId that breaks the channel rules is a clear local error")
    func invalidUserId() async throws {
        try await NotifierHarness.run(.appsync) { h in
            var errors = await h.notifier.errors().makeAsyncIterator()
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn("user_1"))
            let error = try #require(await errors.next())
            #expect(error.code == .invalidChannel)
            #expect(error.message.contains("user_1"))
            #expect(h.transport.state.subscriptions.isEmpty)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("an expired session reaches consumers as sessionExpired, on the error stream and the broker")
    func sessionExpired() async throws {
        try await NotifierHarness.run(.appsync) { h in
            var errors = await h.notifier.errors().makeAsyncIterator()
            var system = h.broker.events(of: SwitchboardErrorEvent.self).makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            await h.transport.waitUntil { $0.isConnected }
            let expired = SwitchboardError(code: .sessionExpired, message: "token rejected twice")
            h.transport.emit(.connectionStateChanged(.disconnected(expired)))
            #expect(await errors.next() == expired)
            #expect(await system.next()?.event.error == expired)
            #expect(await h.notifier.currentConnectionState == .disconnected(expired))
        }
    }

    @Test("connection-state changes are published as system events")
    func connectionStateEvents() async throws {
        try await NotifierHarness.run(.graphql) { h in
            var states = h.broker.events(of: ConnectionStateChangedEvent.self).makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let first = try #require(await states.next())
            let second = try #require(await states.next())
            #expect([first.event.state, second.event.state] == [.connecting(attempt: 1), .connected])
            #expect(first.event.transport == .graphql)
        }
    }

    @Test("switching from an exact channel to the family wildcard is make-before-break: nothing lost, nothing twice")
    func makeBeforeBreak() async throws {
        try await NotifierHarness.run(.appsync, behavior: .manual) { h in
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let exact = NotifierHarness.channel("device/presenceChanged")
            let wildcard = NotifierHarness.channel("device/*")
            await h.transport.waitUntil { $0.subscriptions.keys.contains(exact) }
            h.transport.emit(.connectionStateChanged(.connected))
            h.transport.acknowledge(exact)
            h.transport.deliver(AppSyncPayload.presence("established", online: true), on: exact)
            #expect(await presence.next()?.thingName == "established")

            var merged = await h.notifier.deviceValues().makeAsyncIterator()
            await h.transport.waitUntil { $0.subscriptions.keys.contains(wildcard) }
            #expect(h.transport.state.subscriptions.keys.contains(exact), "the exact channel stays until the wildcard is acknowledged")
            h.transport.deliver(AppSyncPayload.presence("before-ack", online: true), on: exact)
            h.transport.acknowledge(wildcard)
            // After the acknowledgement the same event arrives on both subscriptions; it must be delivered once.
            h.transport.deliver(AppSyncPayload.presence("after-ack", online: true), on: exact)
            h.transport.deliver(AppSyncPayload.presence("after-ack", online: true), on: wildcard)
            h.transport.deliver(AppSyncPayload.presence("sentinel", online: false), on: wildcard)

            #expect(await take(3, from: &presence).map(\.thingName) == ["before-ack", "after-ack", "sentinel"])
            #expect(await take(2, from: &merged).map(\.thingName) == ["after-ack", "sentinel"])
            await h.transport.waitUntil { !$0.subscriptions.keys.contains(exact) }
            #expect(h.transport.state.commands.last == .unsubscribe(exact))
        }
    }

    @Test("after a dropped connection every subscription is established again and delivery resumes")
    func reconnectResumes() async throws {
        try await NotifierHarness.run(.appsync) { h in
            var plans = await h.notifier.planValues().makeAsyncIterator()
            var errors = await h.notifier.errors().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let key = NotifierHarness.channel("organization/planChanged")
            await h.waitForSubscriptions([key])
            h.transport.dropConnection()
            #expect(await errors.next()?.code == .network)
            await h.transport.waitUntil { $0.connectionCount == 2 && $0.established.contains(key) }
            h.transport.deliver(AppSyncPayload.plan(free: true), on: key)
            #expect(await plans.next()?.isFreePlan == true)
        }
    }
}
