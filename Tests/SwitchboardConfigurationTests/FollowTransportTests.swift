#if SwiftConfiguration
import Configuration
import SwitchboardConfiguration
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("BackendNotifier follows the transport setting", .timeLimit(.minutes(1)))
struct FollowTransportTests {
    static let key = AbsoluteConfigKey(["switchboard", "transport"])
    static let source = TransportSelection.Source.configuration(key: "switchboard.transport")

    @Test("every change of switchboard.transport switches; a bad value is reported and the transport stays")
    func followsChanges() async throws {
        let provider = MutableInMemoryProvider(initialValues: [Self.key: "graphql"])
        let config = ConfigReader(provider: provider)
        let made = Observed<[ScriptedTransport]>([])
        let recording = RecordingEventBroker()
        let notifier = try BackendNotifier(
            selection: TransportSelection.resolve(config: config),
            session: SessionSource(.signedIn(userId: "u1", orgId: "o1") { _ in "token" }),
            broker: recording.broker
        ) { kind in
            let transport = ScriptedTransport(kind: kind)
            made.update { $0.append(transport) }
            return transport
        }
        #expect(notifier.transportKind == .graphql)
        var errors = await notifier.errors().makeAsyncIterator()
        let roles = await notifier.roleValues()

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            group.addTask { try await notifier.followTransport(config: config) }
            await Self.waitUntilLive(made, count: 1)

            provider.setValue("appsync", forKey: Self.key)
            await Self.waitUntilLive(made, count: 2)
            #expect(notifier.transportKind == .appsync)
            #expect(made.value[0].state.isShutDown)
            #expect(made.value[1].state.subscriptions.keys.contains("vortex-app/user/u1/roleChanged"))

            provider.setValue("apsync", forKey: Self.key)
            let error = await errors.next()
            #expect(error == SwitchboardError(
                code: .invalidConfiguration,
                message: #"invalid value "apsync" for switchboard.transport; allowed values: graphql, appsync"#))
            #expect(notifier.transportKind == .appsync)
            #expect(made.value.count == 2 && !made.value[1].state.isShutDown)

            provider.setValue("graphql", forKey: Self.key)
            await Self.waitUntilLive(made, count: 3)
            #expect(notifier.transportKind == .graphql)
            #expect(recording.published(TransportChangedEvent.self) == [
                TransportChangedEvent(from: .graphql, to: .appsync, source: Self.source),
                TransportChangedEvent(from: .appsync, to: .graphql, source: Self.source),
            ])

            // Shutting the notifier down ends the watch too: the group finishes.
            await notifier.shutDown()
            try await group.waitForAll()
        }
        withExtendedLifetime(roles) {}
    }

    @Test("the current value is applied at once when it names another transport")
    func appliesCurrentValue() async throws {
        let config = ConfigReader(provider: InMemoryProvider(values: [Self.key: "appsync"]))
        let made = Observed<[ScriptedTransport]>([])
        let notifier = try BackendNotifier(
            selection: TransportSelection(kind: .graphql, source: .code),
            session: SessionSource(.signedIn(userId: "u1", orgId: "o1") { _ in "token" })
        ) { kind in
            let transport = ScriptedTransport(kind: kind)
            made.update { $0.append(transport) }
            return transport
        }
        let roles = await notifier.roleValues()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            group.addTask { try await notifier.followTransport(config: config) }
            await Self.waitUntilLive(made, count: 2)
            #expect(made.value.map(\.kind) == [.graphql, .appsync])
            #expect(notifier.transportKind == .appsync)
            await notifier.shutDown()
            try await group.waitForAll()
        }
        withExtendedLifetime(roles) {}
    }

    /// Waits until `count` transports were made and the last one is connected and subscribed.
    static func waitUntilLive(_ made: Observed<[ScriptedTransport]>, count: Int) async {
        await made.wait { $0.count >= count }
        await made.value[count - 1].waitUntil { $0.isConnected && !$0.established.isEmpty }
    }
}
#endif
