import ExampleSupport
import Foundation
import Synchronization
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardGraphQL
import SwitchboardServerSentEvents
import SwitchboardTesting
import Testing

/// The main package's parity fixtures (Examples/ParityTest/Fixtures: the same events recorded over
/// AppSync Events and over graphql-ws) replayed through the two built-in transports, and the same
/// events published live over server-sent events: every stream must see the same values on all three.
@Suite("Parity: server-sent events, AppSync Events and GraphQL give consumers the same streams", .serialized)
struct ParityTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("ParityTest/Fixtures")

    /// The events of the AppSync Events recording, in the order the server sent them.
    static func events(of fixture: Fixture) -> [String] {
        fixture.entries.compactMap { entry in
            guard case .frame(.serverToClient, let text) = entry.event,
                let frame = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
                frame["type"] as? String == "data"
            else { return nil }
            return frame["event"] as? String
        }
    }

    /// The user-level channel an event is published on: its `eventType`, whose `user/` prefix the
    /// channel leaves out (contract.md §3).
    static func channel(of event: String, userId: String) throws -> String {
        let fields = try #require((try JSONSerialization.jsonObject(with: Data(event.utf8))) as? [String: Any])
        let eventType = try #require(fields["eventType"] as? String)
        let relative = switch eventType {
        case "user/roleChanged": "roleChanged"
        case "user/tokenRevoked": "tokenRevoked"
        default: eventType
        }
        return "vortex-app/user/\(userId)/\(relative)"
    }

    @Test("every stream sees the same values over all three transports")
    func sameValues() async throws {
        let recorded = try Fixture(contentsOf: Self.fixtures.appendingPathComponent("appsync.jsonl"))
        let header = try #require(recorded.header)
        let (appSync, appSyncReport) = try await NotifierObservation.replay(recorded) { player, clock in
            AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: "ws://127.0.0.1:1/event/realtime")!, authorization: .apiKey("redacted"), clock: clock),
                connector: player)
        }
        let legacy = try Fixture(contentsOf: Self.fixtures.appendingPathComponent("graphql-ws.jsonl"))
        let (graphQL, graphQLReport) = try await NotifierObservation.replay(legacy) { player, clock in
            GraphQLSubscriber(
                configuration: .init(url: URL(string: "ws://127.0.0.1:1/graphql")!, wireProtocol: .graphQLWS, clock: clock),
                connector: player)
        }
        #expect(appSyncReport.mismatches == [] && graphQLReport.mismatches == [])
        let events = Self.events(of: recorded)
        #expect(!events.isEmpty && appSync.valueCount > 0)

        let sse = try await EmulatorChild.with { emulator in
            let transport = ServerSentEventsTransport(configuration: .init(streamURL: emulator.streamURL))
            let userId = header.userId
            let session = SessionSource(.signedIn(userId: userId, orgId: header.orgId) { _ in EmulatorChild.token(for: userId) })
            let notifier = BackendNotifier(transport: transport, session: session)
            // Every delivery to a stream passes the broker with the stream's name: count them, to
            // know when all have arrived.
            let delivered = Mutex(0)
            let counting = EventCategory.allCases.filter { $0 != .system }.map { category in
                notifier.broker.subscribe(category: category) { record in
                    if record.metadata.stream != nil { delivered.withLock { $0 += 1 } }
                }
            }
            defer { counting.forEach { $0.cancel() } }
            // Observing opens all eleven streams; the transport covers them with five channels:
            // device/*, organization/*, archive/stateChanged, roleChanged, tokenRevoked.
            let planned = 5
            return try await NotifierObservation.observe(notifier) { states in
                await states.wait { $0.contains(.connected) }
                try await emulator.waitForSubscriptions(planned)
                for event in events { try await emulator.publish(event, on: try Self.channel(of: event, userId: userId)) }
                let deadline = ContinuousClock.now + .seconds(20)
                while delivered.withLock({ $0 }) < appSync.valueCount && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
        }
        #expect(sse.valueCount == appSync.valueCount)
        let againstAppSync = sse.withoutTransportMetadata().differences(from: appSync.withoutTransportMetadata(), includingErrorsAndStates: false)
        #expect(againstAppSync == [], "server-sent events vs AppSync Events")
        let againstGraphQL = sse.withoutTransportMetadata().differences(from: graphQL.withoutTransportMetadata(), includingErrorsAndStates: false)
        #expect(againstGraphQL == [], "server-sent events vs GraphQL")
    }
}
