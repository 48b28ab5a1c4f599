import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("BackendNotifier: switching transport live", .timeLimit(.minutes(1)))
struct BackendNotifierSwitchTests {
    static let graphQLRole: SubscriptionKey = "graphql/subscribeRoleChange"
    static let appSyncRole = NotifierHarness.channel("roleChanged")

    @Test("consumers' streams continue across a switch, and the broker, metrics and kind report it")
    func streamsContinue() async throws {
        try await SwitchHarness.run(.graphql) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            var errors = await h.notifier.errors().makeAsyncIterator()
            #expect(await states.next() == .idle)
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([Self.graphQLRole, "graphql/subscribeDeviceState"], on: 0)
            #expect(await take(2, from: &states) == [.connecting(attempt: 1), .connected])
            h.transports[0].scripted.deliver(GraphQLPayload.role("before"), on: Self.graphQLRole)
            #expect(await roles.next()?.reason == "before")

            try await h.notifier.switchTransport(to: .appsync)

            #expect(h.notifier.transportKind == .appsync)
            await h.waitForSubscriptions([Self.appSyncRole, NotifierHarness.channel("device/presenceChanged")], on: 1)
            h.transports[1].scripted.deliver(AppSyncPayload.role("after"), on: Self.appSyncRole)
            h.transports[1].scripted.deliver(
                AppSyncPayload.presence("cam-1", online: true), on: NotifierHarness.channel("device/presenceChanged"))
            #expect(await roles.next()?.reason == "after")
            #expect(await presence.next()?.thingName == "cam-1")
            // The old transport's `shutDown` never reaches consumers: connecting, then the new connection.
            #expect(await take(2, from: &states) == [.connecting(attempt: 1), .connected])
            #expect(await h.notifier.currentConnectionState == .connected)
            #expect(h.broker.published(TransportChangedEvent.self) == [TransportChangedEvent(from: .graphql, to: .appsync, source: .code)])
            #expect(!h.broker.published(ConnectionStateChangedEvent.self).contains { $0.state == .shutDown })
            #expect(h.counter("switchboard.notifier.transport_switches", [("from", "graphql"), ("to", "appsync")]) == 1)
            #expect(h.counter("switchboard.notifier.delivered", [("transport", "appsync")]) == 2)
            #expect(h.counter("switchboard.notifier.delivered", [("transport", "graphql")]) == 1)

            // Nothing was reported as an error, and the streams are still open after shutdown begins.
            await h.notifier.shutDown()
            #expect(await errors.next() == nil)
            #expect(await roles.next() == nil)
        }
    }

    @Test("the old transport has stopped before the new one starts or connects; never two at once")
    func oneTransportAtATime() async throws {
        try await SwitchHarness.run(.graphql) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([Self.graphQLRole], on: 0)
            try await h.notifier.switchTransport(to: .appsync)
            await h.waitForSubscriptions([Self.appSyncRole], on: 1)
            try await h.notifier.switchTransport(to: .graphql)
            await h.waitForSubscriptions([Self.graphQLRole], on: 2)

            let log = h.log.value
            for entry in log {
                switch entry {
                case .runStarted(_, let others), .connect(_, _, let others):
                    #expect(others.isEmpty, "\(entry) while another transport was active: \(log)")
                case .runReturned, .shutDown: break
                }
            }
            func index(_ entry: SwitchLogEntry) throws -> Int {
                try #require(log.firstIndex(of: entry), "\(entry) missing from \(log)")
            }
            let firstReturned = try index(.runReturned(.graphql))
            #expect(try index(.shutDown(.graphql)) < firstReturned)
            #expect(firstReturned < (try index(.runStarted(.appsync, alsoActive: []))))
            #expect(firstReturned < (try index(.connect(.appsync, userId: "u1", alsoActive: []))))
            let appSyncReturned = try index(.runReturned(.appsync))
            #expect(appSyncReturned < (try #require(log.lastIndex(of: .connect(.graphql, userId: "u1", alsoActive: [])))))
            #expect(log.filter { if case .connect = $0 { true } else { false } }.count == 3)
            #expect(h.transports[0].scripted.state.commands.last == .shutDown)
            #expect(h.transports[0].scripted.state.commands.filter { if case .connect = $0 { true } else { false } }.count == 1)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("events the old transport reports after the switch began are dropped, not delivered")
    func staleEventsDropped() async throws {
        try await SwitchHarness.run(.graphql, holdShutDown: true) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([Self.graphQLRole], on: 0)
            let old = h.transports[0]
            old.scripted.deliver(GraphQLPayload.role("before"), on: Self.graphQLRole)
            #expect(await roles.next()?.reason == "before")

            h.setHoldShutDown(false)
            async let switched: Void = h.notifier.switchTransport(to: .appsync)
            // The shutdown is requested in the same step that starts the switch; the old
            // transport holds it, so it is still running and reporting.
            await h.log.wait { $0.contains(.shutDown(.graphql)) }
            old.scripted.deliver(GraphQLPayload.role("stale-1"), on: Self.graphQLRole)
            old.scripted.deliver(GraphQLPayload.role("stale-2"), on: Self.graphQLRole)
            old.releaseShutDown()
            try await switched

            await h.waitForSubscriptions([Self.appSyncRole], on: 1)
            h.transports[1].scripted.deliver(AppSyncPayload.role("fresh"), on: Self.appSyncRole)
            #expect(await roles.next()?.reason == "fresh")
            #expect(h.counter("switchboard.notifier.stale_events", [("transport", "graphql")]) == 2)
            #expect(h.counter("switchboard.notifier.delivered", [("transport", "graphql")]) == 1)
        }
    }

    @Test("subscriptions are planned anew for the new kind and sent as the current identity")
    func resubscribesForNewKind() async throws {
        try await SwitchHarness.run(.graphql) { h in
            let streams = await (
                h.notifier.devicePresenceValues(), h.notifier.deviceRecordingValues(), h.notifier.roleValues(),
                h.notifier.planValues())
            h.session.update(NotifierHarness.signedIn("u7", orgId: "o7"))
            await h.waitForSubscriptions(
                ["graphql/subscribeDeviceState", "graphql/subscribeRoleChange", "graphql/subscribeOrganizationState"], on: 0)

            try await h.notifier.switchTransport(to: TransportSelection(kind: .appsync, source: .environment(variable: "X")))

            let expected: Set<SubscriptionKey> = [
                NotifierHarness.channel("device/*", user: "u7"), NotifierHarness.channel("roleChanged", user: "u7"),
                NotifierHarness.channel("organization/planChanged", user: "u7"),
            ]
            await h.waitForSubscriptions(expected, on: 1)
            let commands = h.transports[1].scripted.state.commands
            #expect(commands.first == .connect(userId: "u7", orgId: "o7"))
            #expect(commands.count == 4, "one connect and three subscribes: \(commands)")
            #expect(h.broker.published(TransportChangedEvent.self).last?.source == .environment(variable: "X"))
            withExtendedLifetime(streams) {}
        }
    }

    @Test("a sign-in change while the old transport stops reaches the new transport")
    func identityChangeDuringSwitch() async throws {
        try await SwitchHarness.run(.graphql, holdShutDown: true) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn("u1"))
            await h.waitForSubscriptions([Self.graphQLRole], on: 0)
            h.setHoldShutDown(false)
            async let switched: Void = h.notifier.switchTransport(to: .appsync)
            await h.log.wait { $0.contains(.shutDown(.graphql)) }
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            #expect(await states.next() == .connecting(attempt: 1))
            h.session.update(NotifierHarness.signedIn("u2"))
            h.session.update(.signedOut)
            #expect(await states.next() == .idle)
            h.session.update(NotifierHarness.signedIn("u3"))
            #expect(await states.next() == .connecting(attempt: 1))
            h.transports[0].releaseShutDown()
            try await switched
            await h.waitForSubscriptions([NotifierHarness.channel("roleChanged", user: "u3")], on: 1)
            #expect(h.transports[1].scripted.state.commands.first == .connect(userId: "u3", orgId: "o1"))
            #expect(!h.transports[0].scripted.state.commands.contains(.connect(userId: "u2", orgId: "o1")))
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a factory that fails or makes the wrong kind is an invalidConfiguration error, and the current transport stays",
          arguments: [FactoryMode.failing, .wrongKind])
    func factoryFailureKeepsTransport(mode: FactoryMode) async throws {
        try await SwitchHarness.run(.graphql) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            var errors = await h.notifier.errors().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([Self.graphQLRole], on: 0)

            h.setFactory(mode)
            let thrown = await #expect(throws: SwitchboardError.self) { try await h.notifier.switchTransport(to: .appsync) }
            #expect(thrown?.code == .invalidConfiguration)
            let reported = await errors.next()
            #expect(reported?.code == .invalidConfiguration)
            #expect(reported == thrown)
            #expect(h.broker.published(SwitchboardErrorEvent.self).map(\.error) == [try #require(thrown)])
            #expect(h.notifier.transportKind == .graphql)
            #expect(h.broker.published(TransportChangedEvent.self).isEmpty)
            #expect(h.counter("switchboard.notifier.transport_switch_failures", [("to", "appsync")]) == 1)

            let current = h.transports[0].scripted
            #expect(!current.state.isShutDown && current.state.isRunning && current.state.isConnected)
            current.deliver(GraphQLPayload.role("still here"), on: Self.graphQLRole)
            #expect(await roles.next()?.reason == "still here")

            // The next valid request still switches.
            h.setFactory(.normal)
            try await h.notifier.switchTransport(to: .appsync)
            #expect(h.notifier.transportKind == .appsync)
        }
    }

    @Test("without a transport factory, a switch is an invalidConfiguration error")
    func noFactory() async throws {
        try await NotifierHarness.run(.graphql) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([Self.graphQLRole])
            let error = await #expect(throws: SwitchboardError.self) { try await h.notifier.switchTransport(to: .appsync) }
            #expect(error?.code == .invalidConfiguration)
            withExtendedLifetime(roles) {}
            #expect(h.notifier.transportKind == .graphql)
            #expect(!h.transport.state.isShutDown)
        }
    }

    @Test("switching to the active transport does nothing")
    func switchToSameKind() async throws {
        try await SwitchHarness.run(.appsync) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([Self.appSyncRole], on: 0)
            let before = h.transports[0].scripted.state.commands
            try await h.notifier.switchTransport(to: .appsync)
            try await h.notifier.switchTransport(to: TransportSelection(kind: .appsync, source: .default))
            #expect(h.factoryCalls == 1)
            #expect(h.transports[0].scripted.state.commands == before)
            #expect(!h.log.value.contains(.shutDown(.appsync)))
            #expect(h.broker.published(TransportChangedEvent.self).isEmpty)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("before run(), the transport is replaced at once and the old one never runs")
    func switchBeforeRun() async throws {
        let h = try SwitchHarness.make(.graphql)
        try await h.notifier.switchTransport(to: .appsync)
        #expect(h.notifier.transportKind == .appsync)
        #expect(h.transports[0].scripted.state.isShutDown)
        let roles = await h.notifier.roleValues()
        h.session.update(NotifierHarness.signedIn())
        async let running: Void = h.notifier.run()
        await h.waitForSubscriptions([Self.appSyncRole], on: 1)
        #expect(!h.log.value.contains(.runStarted(.graphql, alsoActive: [])))
        await h.notifier.shutDown()
        try await running
        withExtendedLifetime(roles) {}
    }

    @Test("shutting down during a switch ends the caller's wait with shutDown")
    func shutDownDuringSwitch() async throws {
        try await SwitchHarness.run(.graphql, holdShutDown: true) { h in
            h.session.update(NotifierHarness.signedIn())
            async let switched: Void = h.notifier.switchTransport(to: .appsync)
            await h.log.wait { $0.contains(.shutDown(.graphql)) }
            await h.notifier.shutDown()
            do {
                try await switched
                Issue.record("the switch completed although the notifier shut down")
            } catch {
                #expect((error as? SwitchboardError)?.code == .shutDown, "\(error)")
            }
            #expect(h.log.value.contains(.shutDown(.appsync)), "the transport that was to take over is shut down too")
            await #expect(throws: SwitchboardError.self) { try await h.notifier.switchTransport(to: .graphql) }
        }
    }
}
