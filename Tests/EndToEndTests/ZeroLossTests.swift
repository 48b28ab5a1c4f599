import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardSync
import SwitchboardTesting
import Testing

/// Issue 7's promise: with catch-up on, a consumer gets exactly what was published, in order,
/// once each, while the emulator drops every connection again and again and the transport is
/// switched once.
@Suite("End to end: nothing lost across drops and a switch", .timeLimit(.minutes(2)))
struct ZeroLossTests {
    static let events = 10_000
    static let drops = 24

    @Test("10,000 events, 24 drops and a switch of transport: every event once, in order")
    func zeroLoss() async throws {
        try await withRunningEmulator(configuration: EndToEnd.emulatorConfiguration()) { emulator, endpoints in
            let clock = ManualClock()
            let connector = NIOWebSocketConnector()
            let makeGraphQL = GraphQLEndToEndTests.transport(.graphQLTransportWS)
            let makeAppSync = AppSyncEndToEndTests.transport()
            let source = SyncClient(configuration: .init(baseURL: URL(string: endpoints.syncBaseURL)!), connector: connector)
            let catchUp = BackendNotifier.CatchUp(source: source, store: InMemoryCheckpointStore())
            let notifier = try BackendNotifier(
                selection: TransportSelection(kind: .appsync, source: .code),
                session: SessionSource(.signedIn(userId: EndToEnd.userId, orgId: EndToEnd.orgId) { _ in EndToEnd.apiKey }),
                configuration: .init(catchUp: catchUp)
            ) { kind in
                switch kind {
                case .graphql: try makeGraphQL(endpoints, connector, clock)
                case .appsync: try makeAppSync(endpoints, connector, clock)
                default: throw SwitchboardError(code: .invalidConfiguration, message: "no \(kind) transport in this test")
                }
            }
            let received = Observed<[String]>([])
            let roles = await notifier.roleValues()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifier.run() }
                group.addTask {
                    for await role in roles {
                        let count = received.update { received -> Int in
                            received.append(role.reason ?? "?")
                            return received.count
                        }
                        if count >= Self.events { return }
                    }
                }
                while emulator.subscriptionCount < 1 { try await Task.sleep(for: .milliseconds(2)) }

                var dropped = 0
                for index in 0..<Self.events {
                    try emulator.publish(
                        channel: "\(EndToEnd.namespace)/user/\(EndToEnd.userId)/roleChanged", event: Payload.role("e\(index)"))
                    if index % 400 == 100, dropped < Self.drops {
                        // Drop a live, subscribed connection: wait for the reconnect after the
                        // previous drop first (a slow machine may still be making it).
                        while emulator.subscriptionCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
                        dropped += emulator.dropAllConnections(code: 1011, reason: "chaos") > 0 ? 1 : 0
                    }
                    if index == Self.events / 2 { try await notifier.switchTransport(to: .graphql) }
                    if index % 50 == 0 { try await Task.sleep(for: .milliseconds(1)) }
                }
                #expect(dropped >= 20, "the emulator dropped the connection \(dropped) times")
                #expect(notifier.transportKind == .graphql)
                await received.wait { $0.count >= Self.events }
                await notifier.shutDown()
                try await group.waitForAll()
            }
            let got = received.value
            let expected = (0..<Self.events).map { "e\($0)" }
            let repeated = Dictionary(grouping: got, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            #expect(repeated.isEmpty, "delivered twice: \(repeated.prefix(10))")
            #expect(Set(expected).subtracting(got).sorted().prefix(10) == [], "missing")
            if let first = zip(got, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
                Issue.record("out of order at \(first.offset): \(first.element.0) where \(first.element.1) was published")
            }
            #expect(got.count == Self.events)
        }
    }
}
