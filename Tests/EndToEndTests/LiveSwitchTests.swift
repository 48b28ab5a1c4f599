import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// A notifier switches GraphQL → AppSync Events → GraphQL against one emulator while events are
/// published all along: no stream gets an event twice, and events published once each switch
/// is live arrive.
@Suite("End to end: switching transport live", .timeLimit(.minutes(1)))
struct LiveSwitchTests {
    @Test("GraphQL to AppSync Events and back while events are published")
    func switchBackAndForth() async throws {
        try await withRunningEmulator(configuration: EndToEnd.emulatorConfiguration()) { emulator, endpoints in
            let clock = ManualClock()
            let connector = NIOWebSocketConnector()
            let makeGraphQL = GraphQLEndToEndTests.transport(.graphQLWS)
            let makeAppSync = AppSyncEndToEndTests.transport()
            let notifier = try BackendNotifier(
                selection: TransportSelection(kind: .graphql, source: .code),
                session: SessionSource(.signedIn(userId: EndToEnd.userId, orgId: EndToEnd.orgId) { _ in EndToEnd.apiKey })
            ) { kind in
                switch kind {
                case .graphql: try makeGraphQL(endpoints, connector, clock)
                case .appsync: try makeAppSync(endpoints, connector, clock)
                default: throw SwitchboardError(code: .invalidConfiguration, message: "no \(kind) transport in this test")
                }
            }
            let seen = Observed<[String: [String]]>([:])
            let publishing = LockedValue(true)

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifier.run() }
                await Self.collect(notifier, into: seen, in: &group)
                try await Self.waitUntilLive(emulator, notifier)
                try await Self.publishMarker("start", emulator, until: seen)

                // Publish rounds all along, through both switches.
                group.addTask {
                    var round = 0
                    while publishing.withLock({ $0 }) {
                        round += 1
                        try Self.publishRound("r\(round)", emulator)
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }

                try await Self.waitForRound(after: "start", in: seen)
                try await notifier.switchTransport(to: .appsync)
                #expect(notifier.transportKind == .appsync)
                try await Self.waitUntilLive(emulator, notifier)
                try await Self.publishMarker("after-appsync", emulator, until: seen)

                try await Self.waitForRound(after: "after-appsync", in: seen)
                try await notifier.switchTransport(to: .graphql)
                #expect(notifier.transportKind == .graphql)
                try await Self.waitUntilLive(emulator, notifier)
                try await Self.publishMarker("after-graphql", emulator, until: seen)

                publishing.withLock { $0 = false }
                await notifier.shutDown()
                try await group.waitForAll()
            }

            let delivered = seen.value
            #expect(delivered.keys.sorted() == Self.streams.sorted())
            for (stream, ids) in delivered {
                let repeated = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
                #expect(repeated.isEmpty, "\(stream) got these events twice: \(repeated)")
            }
        }
    }

    static let streams = ["presence", "device", "archive", "ai", "organization", "role", "revoke"]

    /// One consumer task per stream, recording the id of every value it gets.
    static func collect(
        _ notifier: BackendNotifier, into seen: Observed<[String: [String]]>, in group: inout ThrowingTaskGroup<Void, any Error>
    ) async {
        func consume<Value: Sendable>(_ name: String, _ stream: AsyncStream<Value>, id: @escaping @Sendable (Value) -> String?) {
            group.addTask {
                for await value in stream { seen.update { $0[name, default: []].append(id(value) ?? "?") } }
            }
        }
        consume("presence", await notifier.devicePresenceValues()) { $0.thingName }
        consume("device", await notifier.deviceValues()) { $0.thingName }
        consume("archive", await notifier.archiveValues()) { $0.archiveId }
        consume("ai", await notifier.aiSettingsValues()) { $0.aiControlSetting?.uuid }
        consume("organization", await notifier.organizationValues()) { $0.aiControlSetting?.uuid }
        consume("role", await notifier.roleValues()) { $0.reason }
        consume("revoke", await notifier.revokeValues()) { $0.requestId }
    }

    /// Waits until the notifier is connected over one socket holding its five subscriptions, so
    /// the previous transport's socket is gone and the new one's subscriptions are all in place.
    static func waitUntilLive(_ emulator: SwitchboardEmulator, _ notifier: BackendNotifier) async throws {
        while true {
            let connected = await notifier.currentConnectionState == .connected
            if connected && emulator.connectionCount == 1 && emulator.subscriptionCount == 5 { return }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits until every stream got a round of the background publisher after `marker`, so each
    /// switch happens while events flow.
    static func waitForRound(after marker: String, in seen: Observed<[String: [String]]>) async throws {
        await seen.wait { seen in
            streams.allSatisfy { stream in
                let ids = seen[stream] ?? []
                guard let index = ids.firstIndex(of: marker) else { return false }
                return ids[(index + 1)...].contains { $0.hasPrefix("r") }
            }
        }
    }

    /// Publishes one event per channel, each carrying `id`.
    static func publishRound(_ id: String, _ emulator: SwitchboardEmulator) throws {
        let timestamp = Payload.timestamp
        let device = #""orgId":"org-1","siteId":"site-1","thingName":"\#(id)""#
        for (relative, payload) in [
            ("device/presenceChanged", #"{"eventType":"device/presenceChanged","timestamp":"\#(timestamp)",\#(device),"online":true}"#),
            ("archive/stateChanged", #"{"eventType":"archive/stateChanged","timestamp":"\#(timestamp)",\#(device),"archiveId":"\#(id)","status":"Ready"}"#),
            ("organization/aiSettingsChanged", Payload.aiSettings(id)),
            ("roleChanged", Payload.role(id)),
            ("tokenRevoked", Payload.revoke(id)),
        ] {
            _ = try emulator.publish(channel: "\(EndToEnd.namespace)/user/\(EndToEnd.userId)/\(relative)", event: payload)
        }
    }

    /// Publishes a round with id `marker` once and waits until every stream got it.
    static func publishMarker(_ marker: String, _ emulator: SwitchboardEmulator, until seen: Observed<[String: [String]]>) async throws {
        try publishRound(marker, emulator)
        await seen.wait { seen in streams.allSatisfy { seen[$0]?.contains(marker) == true } }
    }
}
