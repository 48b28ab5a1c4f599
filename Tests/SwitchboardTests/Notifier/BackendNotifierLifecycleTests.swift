import Foundation
import Switchboard
import SwitchboardTesting
import Testing

@Suite("BackendNotifier lifecycle", .timeLimit(.minutes(1)))
struct BackendNotifierLifecycleTests {
    @Test("sign-in connects and subscribes the fewest subscriptions", arguments: TransportKind.builtIn)
    func signInSubscribesFewest(kind: TransportKind) async throws {
        try await NotifierHarness.run(kind) { h in
            let streams = await [
                AnyIterator(h.notifier.deviceValues()), AnyIterator(h.notifier.devicePresenceValues()),
                AnyIterator(h.notifier.deviceRecordingValues()), AnyIterator(h.notifier.deviceFirmwareValues()),
                AnyIterator(h.notifier.archiveValues()), AnyIterator(h.notifier.organizationValues()),
                AnyIterator(h.notifier.licenseValues()), AnyIterator(h.notifier.planValues()),
                AnyIterator(h.notifier.aiSettingsValues()), AnyIterator(h.notifier.roleValues()),
                AnyIterator(h.notifier.revokeValues()),
            ]
            #expect(h.transport.state.commands.isEmpty, "nothing is sent while signed out")
            h.session.update(NotifierHarness.signedIn())
            let expected: Set<SubscriptionKey> =
                switch kind {
                case .appsync: [
                    NotifierHarness.channel("device/*"), NotifierHarness.channel("organization/*"),
                    NotifierHarness.channel("archive/stateChanged"), NotifierHarness.channel("roleChanged"),
                    NotifierHarness.channel("tokenRevoked"),
                ]
                default: [
                    "graphql/subscribeDeviceState", "graphql/subscribeOrganizationState",
                    "graphql/subscribeArchiveState", "graphql/subscribeRoleChange", "graphql/subscribeUserTokenRevoke",
                ]
                }
            await h.waitForSubscriptions(expected)
            #expect(h.transport.state.commands.first == .connect(userId: "u1", orgId: "o1"))
            #expect(h.transport.state.commands.filter { if case .subscribe = $0 { true } else { false } }.count == 5)
            if kind == .graphql {
                let org = try #require(h.transport.state.subscriptions["graphql/subscribeOrganizationState"])
                guard case .graphQL(let operation) = org.target else { Issue.record("not a GraphQL target"); return }
                #expect(operation.variables == ["orgId": "o1"])
            }
            withExtendedLifetime(streams) {}
        }
    }

    @Test("a change of user or organization resubscribes without ending consumers' streams", arguments: TransportKind.builtIn)
    func identityChange(kind: TransportKind) async throws {
        try await NotifierHarness.run(kind) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn("u1", orgId: "o1"))
            let oldKey: SubscriptionKey = kind == .appsync ? NotifierHarness.channel("roleChanged") : "graphql/subscribeRoleChange"
            await h.waitForSubscriptions([oldKey])
            h.transport.deliver(kind == .appsync ? AppSyncPayload.role("first") : GraphQLPayload.role("first"), on: oldKey)
            #expect(await roles.next()?.reason == "first")

            h.session.update(NotifierHarness.signedIn("u2", orgId: "o1"))
            let newKey: SubscriptionKey = kind == .appsync ? NotifierHarness.channel("roleChanged", user: "u2") : oldKey
            await h.transport.waitUntil { $0.identity?.userId == "u2" && $0.established.contains(newKey) }
            let commands = h.transport.state.commands
            let tail = Array(commands.suffix(3))
            #expect(tail.first == .unsubscribe(oldKey))
            #expect(tail.dropFirst().first == .connect(userId: "u2", orgId: "o1"))
            guard case .subscribe(let request)? = tail.last else { Issue.record("no resubscribe: \(commands)"); return }
            #expect(request.key == newKey)
            if case .graphQL(let operation) = request.target { #expect(operation.variables == ["userId": "u2"]) }

            h.transport.deliver(kind == .appsync ? AppSyncPayload.role("second") : GraphQLPayload.role("second"), on: newKey)
            #expect(await roles.next()?.reason == "second")

            h.session.update(NotifierHarness.signedIn("u2", orgId: "o2"))
            await h.transport.waitUntil { $0.identity?.orgId == "o2" && $0.established.contains(newKey) }
            #expect(Array(h.transport.state.commands.suffix(3)) == [
                .unsubscribe(newKey), .connect(userId: "u2", orgId: "o2"), .subscribe(request),
            ])
        }
    }

    @Test("sign-out disconnects, and nothing reconnects until the next sign-in")
    func signOut() async throws {
        try await NotifierHarness.run(.appsync) { h in
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            #expect(await states.next() == .idle)
            let presence = await h.notifier.devicePresenceValues()
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([NotifierHarness.channel("device/presenceChanged")])
            #expect(await take(2, from: &states) == [.connecting(attempt: 1), .connected])

            h.session.update(.signedOut)
            await h.transport.waitUntil { $0.commands.last == .disconnect }
            #expect(h.transport.state.commands.suffix(2).first == .unsubscribe(NotifierHarness.channel("device/presenceChanged")))
            #expect(h.transport.state.identity == nil)
            #expect(await states.next() == .idle)

            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([NotifierHarness.channel("device/presenceChanged")])
            #expect(h.transport.state.connectionCount == 2)
            withExtendedLifetime(presence) {}
        }
    }

    @Test("signing in again as the same user after sessionExpired reconnects with the new token and keeps the subscriptions")
    func signInAgainAfterExpiry() async throws {
        try await NotifierHarness.run(.appsync) { h in
            let presence = await h.notifier.devicePresenceValues()
            let key = NotifierHarness.channel("device/presenceChanged")
            h.session.update(NotifierHarness.signedIn())
            await h.waitForSubscriptions([key])
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            h.transport.emit(.connectionStateChanged(.disconnected(SwitchboardError(code: .sessionExpired, message: "token rejected"))))
            while let state = await states.next() {
                if case .disconnected = state { break }
            }

            h.session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "fresh-token" })
            await h.transport.waitUntil { $0.connectionCount == 2 && $0.established.contains(key) }
            let commands = h.transport.state.commands
            #expect(commands.filter { $0 == .connect(userId: "u1", orgId: "o1") }.count == 2)
            #expect(!commands.contains(.unsubscribe(key)), "the channels did not change: \(commands)")
            let token = try await h.transport.state.identity?.tokens.token(for: .connect)
            #expect(token == "fresh-token")
            withExtendedLifetime(presence) {}
        }
    }

    @Test("a consumer that stops iterating is released, and its subscription dropped")
    func consumerCancellation() async throws {
        try await NotifierHarness.run(.appsync) { h in
            let archive = await h.notifier.archiveValues()
            h.session.update(NotifierHarness.signedIn())
            let key = NotifierHarness.channel("archive/stateChanged")
            await h.waitForSubscriptions([key])
            let consumer = Task {
                var count = 0
                for await _ in archive { count += 1 }
                return count
            }
            consumer.cancel()
            #expect(await consumer.value == 0)
            await h.transport.waitUntil { $0.subscriptions.isEmpty }
            #expect(h.transport.state.commands.last == .unsubscribe(key))
        }
    }

    @Test("a stream dropped without iterating is released too")
    func droppedStream() async throws {
        try await NotifierHarness.run(.graphql) { h in
            h.session.update(NotifierHarness.signedIn())
            var roles: AsyncStream<RoleChangeOutput>? = await h.notifier.roleValues()
            await h.waitForSubscriptions(["graphql/subscribeRoleChange"])
            #expect(roles != nil)
            roles = nil
            await h.transport.waitUntil { $0.subscriptions.isEmpty }
            #expect(h.transport.state.commands.last == .unsubscribe("graphql/subscribeRoleChange"))
        }
    }

    @Test("shutDown finishes every stream and makes run() return; run() twice throws")
    func shutDown() async throws {
        let transport = ScriptedTransport(kind: .appsync)
        let notifier = BackendNotifier(transport: transport, session: SessionSource(NotifierHarness.signedIn()))
        let roles = await notifier.roleValues()
        let errors = await notifier.errors()
        async let running: Void = notifier.run()
        await transport.waitUntil { !$0.established.isEmpty }
        await notifier.shutDown()
        try await running
        var count = 0
        for await _ in roles { count += 1 }
        for await _ in errors { count += 1 }
        #expect(count == 0)
        #expect(transport.state.isShutDown)
        await #expect(throws: SwitchboardError.self) { try await notifier.run() }
        var late = await notifier.planValues().makeAsyncIterator()
        #expect(await late.next() == nil)
    }

    @Test("the selection picks exactly one transport, the one it names")
    func selection() throws {
        let made = LockedBox<[TransportKind]>([])
        let selection = try TransportSelection.resolve(code: .graphql, environment: [:])
        let notifier = try BackendNotifier(
            selection: selection,
            factory: { kind in
                made.mutate { $0.append(kind) }
                return ScriptedTransport(kind: kind)
            },
            session: SessionSource())
        #expect(notifier.transportKind == .graphql)
        #expect(made.value == [.graphql])
        #expect(throws: SwitchboardError.self) {
            _ = try BackendNotifier(selection: selection, factory: { _ in ScriptedTransport(kind: .appsync) }, session: SessionSource())
        }
    }
}

/// Type-erases a stream's iterator so streams of different types fit in one array.
private struct AnyIterator: Sendable {
    let keepAlive: any Sendable
    init<T: Sendable>(_ stream: AsyncStream<T>) { keepAlive = stream }
}

/// A tiny mutable box for closures in tests.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
