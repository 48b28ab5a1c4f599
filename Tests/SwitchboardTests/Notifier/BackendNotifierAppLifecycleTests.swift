import Foundation
@testable import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A scripted transport that can also check its connection (it records the checks).
final class VerifyingScriptedTransport: ConnectionVerifying {
    let base: ScriptedTransport
    private let checks = LockedValue<[Duration]>([])

    init(kind: TransportKind) { base = ScriptedTransport(kind: kind) }

    var verifications: [Duration] { checks.withLock { $0 } }
    var kind: TransportKind { base.kind }
    var events: TransportEvents { base.events }
    func run() async throws { try await base.run() }
    func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        base.plan(streams: streams, identity: identity, namespace: namespace)
    }
    func connect(as identity: TransportIdentity) { base.connect(as: identity) }
    func disconnect() { base.disconnect() }
    func subscribe(_ request: SubscriptionRequest) throws { try base.subscribe(request) }
    func unsubscribe(_ key: SubscriptionKey) { base.unsubscribe(key) }
    func shutDown() { base.shutDown() }
    func verifyConnection(timeout: Duration) { checks.withLock { $0.append(timeout) } }
}

@Suite("BackendNotifier app lifecycle", .timeLimit(.minutes(1)))
struct BackendNotifierAppLifecycleTests {
    struct Harness {
        let notifier: BackendNotifier
        let transport: ScriptedTransport
        let session: SessionSource
        let paths: NetworkPathSource
        let broker: RecordingEventBroker

        func key(_ relative: String = "roleChanged") -> SubscriptionKey {
            transport.kind == .appsync ? NotifierHarness.channel(relative) : "graphql/subscribeRoleChange"
        }

        func deliverRole(_ reason: String) {
            transport.deliver(
                transport.kind == .appsync ? AppSyncPayload.role(reason) : GraphQLPayload.role(reason), on: key())
        }

        var connects: Int { transport.state.commands.filter { if case .connect = $0 { true } else { false } }.count }

        /// Waits (bounded by the suite's time limit) until the broker has published `count` events of a type.
        func published<E: SwitchboardEvent>(_ type: E.Type, count: Int) async throws -> [E] {
            while broker.published(type).count < count { try await Task.sleep(for: .milliseconds(1)) }
            return broker.published(type)
        }
    }

    func run(
        _ kind: TransportKind, transport: (any EventTransport)? = nil, scripted: ScriptedTransport? = nil,
        path: NetworkPath? = .satisfied(.wifi), checkTimeout: Duration = .seconds(2),
        _ body: (Harness) async throws -> Void
    ) async throws {
        let scriptedTransport = scripted ?? ScriptedTransport(kind: kind)
        let session = SessionSource()
        let paths = NetworkPathSource(path)
        let broker = RecordingEventBroker()
        let notifier = BackendNotifier(
            transport: transport ?? scriptedTransport, session: session,
            configuration: .init(networkPaths: paths, connectionCheckTimeout: checkTimeout), broker: broker.broker)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            try await body(Harness(notifier: notifier, transport: scriptedTransport, session: session, paths: paths, broker: broker))
            await notifier.shutDown()
            try await group.waitForAll()
        }
    }

    @Test("suspend closes the connection and nothing connects until resume, which connects at once and subscribes again",
          arguments: TransportKind.builtIn)
    func suspendAndResume(kind: TransportKind) async throws {
        try await run(kind) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn("u1"))
            await h.waitForRole()
            h.deliverRole("before")
            #expect(await roles.next()?.reason == "before")

            await h.notifier.suspend()
            await h.transport.waitUntil { $0.commands.last == .disconnect }
            // A change of user while suspended is applied (the old subscription goes) but connects nothing.
            h.session.update(NotifierHarness.signedIn("u2"))
            if kind == .appsync {
                await h.transport.waitUntil { $0.commands.contains(.unsubscribe(NotifierHarness.channel("roleChanged"))) }
            } else {
                await h.transport.waitUntil { $0.commands.last == .unsubscribe("graphql/subscribeRoleChange") }
            }
            #expect(h.connects == 1, "\(h.transport.state.commands)")
            #expect(!h.transport.state.isConnected)

            await h.notifier.resume()
            let newKey: SubscriptionKey = kind == .appsync ? NotifierHarness.channel("roleChanged", user: "u2") : h.key()
            await h.transport.waitUntil { $0.established.contains(newKey) }
            #expect(h.connects == 2)
            #expect(h.transport.state.identity?.userId == "u2")
            h.transport.deliver(kind == .appsync ? AppSyncPayload.role("after") : GraphQLPayload.role("after"), on: newKey)
            #expect(await roles.next()?.reason == "after", "the consumer's stream survived the suspension")
            let phases = try await h.published(AppLifecycleEvent.self, count: 2).map(\.phase)
            #expect(phases == [.suspended, .resumed])
        }
    }

    @Test("resume without a suspension checks the connection instead of replacing it")
    func resumeWithoutSuspension() async throws {
        let verifying = VerifyingScriptedTransport(kind: .appsync)
        try await run(.appsync, transport: verifying, scripted: verifying.base, checkTimeout: .milliseconds(1500)) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForRole()
            await h.notifier.resume()
            #expect(verifying.verifications == [.milliseconds(1500)])
            #expect(h.connects == 1)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("the same user again with a new token provider keeps the connection; the next connect uses the new token")
    func tokenRefresh() async throws {
        try await run(.appsync) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "token-1" })
            await h.waitForRole()
            let identity = try #require(h.transport.state.identity)
            #expect(try await identity.tokens.token(for: .connect) == "token-1")
            h.session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "token-2" })
            // The transport's identity reads the session's current provider at every request.
            while try await identity.tokens.token(for: .subscribe) != "token-2" { try await Task.sleep(for: .milliseconds(1)) }
            _ = await h.notifier.connectionStates()  // an actor round trip after the update was handled
            #expect(h.connects == 1, "no reconnect: \(h.transport.state.commands)")
            #expect(!h.transport.state.commands.contains(.unsubscribe(h.key())))
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a lost path closes the connection and nothing connects until it returns, then at once",
          arguments: TransportKind.builtIn)
    func pathLostAndBack(kind: TransportKind) async throws {
        try await run(kind) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForRole()
            h.paths.update(.unsatisfied)
            await h.transport.waitUntil { $0.commands.last == .disconnect }

            // Signing in again while offline connects nothing.
            h.session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "token-2" })
            h.paths.update(NetworkPath(status: .unsatisfied, interfaces: [.cellular]))
            let offline = try await h.published(NetworkStatusChangedEvent.self, count: 3)

            #expect(offline.map(\.reaction) == [.none, .disconnected, .none])
            #expect(h.connects == 1)

            h.paths.update(.satisfied(.cellular))
            await h.transport.waitUntil { $0.established.contains(h.key()) && $0.connectionCount == 2 }
            let events = try await h.published(NetworkStatusChangedEvent.self, count: 4)
            #expect(events.last?.reaction == .reconnecting)
            #expect(events.last?.previous?.isSatisfied == false)
            h.deliverRole("back")
            #expect(await roles.next()?.reason == "back")
        }
    }

    @Test("an interface change checks the connection at once: a ping where the transport can, a new connection where not")
    func interfaceChange() async throws {
        let verifying = VerifyingScriptedTransport(kind: .graphql)
        try await run(.graphql, transport: verifying, scripted: verifying.base, checkTimeout: .seconds(3)) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForRole()
            h.paths.update(.satisfied(.cellular))
            let events = try await h.published(NetworkStatusChangedEvent.self, count: 2)
            #expect(events.last?.reaction == .checkingConnection)
            #expect(verifying.verifications == [.seconds(3)])
            #expect(h.connects == 1)
            withExtendedLifetime(roles) {}
        }
        try await run(.appsync) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForRole()
            h.paths.update(.satisfied(.cellular, .wifi))
            await h.transport.waitUntil { $0.connectionCount == 2 && $0.established.contains(h.key()) }
            #expect(h.connects == 2, "a transport that cannot check is connected again at once")
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a monitor that reported nothing at start: its first report, a change of interface, checks the connection")
    func firstReportChecks() async throws {
        let verifying = VerifyingScriptedTransport(kind: .graphql)
        try await run(.graphql, transport: verifying, scripted: verifying.base, path: nil, checkTimeout: .seconds(3)) { h in
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForRole()
            // The notifier has taken in the transport's connect (it reads its events apart from the paths).
            while await h.notifier.currentConnectionState != .connected { try await Task.sleep(for: .milliseconds(1)) }
            h.paths.update(.satisfied(.cellular))
            let events = try await h.published(NetworkStatusChangedEvent.self, count: 1)
            #expect(events.first?.previous == nil)
            #expect(events.first?.reaction == .checkingConnection)
            #expect(verifying.verifications == [.seconds(3)])
            #expect(h.connects == 1)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a path that starts lost holds the first connection until the path comes")
    func startsOffline() async throws {
        try await run(.appsync, path: .unsatisfied) { h in
            let roles = await h.notifier.roleValues()
            _ = try await h.published(NetworkStatusChangedEvent.self, count: 1)
            h.session.update(NotifierHarness.signedIn())
            await h.transport.waitUntil { $0.subscriptions[h.key()] != nil }
            #expect(h.connects == 0)
            h.paths.update(.satisfied(.wifi))
            await h.waitForRole()
            #expect(h.connects == 1)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a memory warning empties the broker's history and dead letters and says so")
    func memoryWarning() async throws {
        try await run(.appsync) { h in
            h.broker.broker.reportUndeliverable(
                payload: Data("{".utf8), eventName: "device.presence", error: SwitchboardError(code: .decodingFailed, message: "bad"))
            h.session.update(NotifierHarness.signedIn())
            _ = try await h.published(ConnectionStateChangedEvent.self, count: 1)
            let history = h.broker.broker.history.count
            #expect(history > 0)
            let trim = await h.notifier.didReceiveMemoryWarning()
            #expect(trim.historyRecords == history)
            #expect(trim.deadLetters == 1)
            #expect(trim.rememberedDeliveries == 0, "catch-up is off")
            #expect(h.broker.broker.deadLetters.isEmpty)
            #expect(h.broker.broker.history.map(\.eventName) == [MemoryWarningEvent.eventName])
            #expect(h.broker.published(MemoryWarningEvent.self) == [MemoryWarningEvent(trimmed: trim)])
        }
    }
}

extension BackendNotifierAppLifecycleTests.Harness {
    /// Waits until the role subscription is established.
    func waitForRole() async {
        let key = key()
        await transport.waitUntil { $0.established.contains(key) }
    }
}
