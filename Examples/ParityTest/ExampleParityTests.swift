// An example parity test: copy it (with RecordExampleFixtures.swift) into your app's test target
// to prove that your consumers get the same values whether the backend events come over AppSync
// Events or over the legacy GraphQL transport.
//
// How it works: Fixtures/appsync.jsonl and Fixtures/graphql-ws.jsonl are recorded
// conversations, the same events published once over each transport. The test replays each one
// through its transport into a `BackendNotifier` (no network, no real time), collects what every
// stream yielded (`NotifierObservation`), and compares the two after dropping the metadata only
// AppSync Events carries (`eventType`, `timestamp`).
//
// To adapt it:
// 1. `ParityTransports.make`: build your transports with your app's settings (dialect, timeouts,
//    reconnect policy); keep the `connector` and `clock` parameters, which the recorder and the
//    player provide.
// 2. `ParityFixture.events` (RecordExampleFixtures.swift): publish the events your streams
//    care about, as the backend publishes them on AppSync Events.
// 3. Record: `SWITCHBOARD_RECORD_EXAMPLE_FIXTURES=1 swift test --filter RecordExampleFixtures`
//    (runs the emulator on loopback and writes both files; commit them).
// 4. `whatMyConsumersRelyOn`: replace the expectations with the values your code depends on.
// Then `swift test --filter ExampleParityTests`.

import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardGraphQL
import SwitchboardTesting
import Testing

/// Your transports, as your app configures them, around a given connector and clock.
enum ParityTransports {
    /// The legacy transport's dialect in your deployment; it names the legacy fixture.
    static let legacyDialect = GraphQLProtocol.graphQLWS

    /// - Parameters:
    ///   - host: The backend's `host:port` (the emulator's when recording; replaying ignores it).
    static func make(
        _ kind: TransportKind, host: String, apiKey: String, connector: any WebSocketConnector, clock: ManualClock
    ) -> any EventTransport {
        switch kind {
        case .appsync:
            AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: "ws://\(host)/event/realtime")!, authorization: .apiKey(apiKey), clock: clock),
                connector: connector)
        default:
            GraphQLSubscriber(
                configuration: .init(url: URL(string: "ws://\(host)/graphql")!, wireProtocol: legacyDialect, clock: clock),
                connector: connector)
        }
    }
}

/// The committed recordings, next to this file.
enum ParityFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func url(_ kind: TransportKind) -> URL {
        let name = kind == .appsync ? "appsync" : ParityTransports.legacyDialect.rawValue
        return directory.appendingPathComponent("\(name).jsonl")
    }

    /// Replays the recording of `kind` through that transport.
    static func replay(_ kind: TransportKind) async throws -> (observation: NotifierObservation, report: FixturePlayer.Report) {
        let fixture = try Fixture(contentsOf: url(kind))
        return try await NotifierObservation.replay(fixture) { player, clock in
            ParityTransports.make(kind, host: "127.0.0.1:1", apiKey: "redacted", connector: player, clock: clock)
        }
    }
}

@Suite("Example parity: my streams see the same values on AppSync Events and on GraphQL", .timeLimit(.minutes(1)))
struct ExampleParityTests {
    @Test("both transports give every stream the same values, errors and connection states")
    func sameValuesOnBothTransports() async throws {
        let (appSync, appSyncReport) = try await ParityFixtures.replay(.appsync)
        let (graphQL, graphQLReport) = try await ParityFixtures.replay(.graphql)
        // Each transport still speaks as it did when the fixture was recorded.
        #expect(appSyncReport.mismatches == [])
        #expect(graphQLReport.mismatches == [])
        // A replay that delivered nothing proves nothing.
        #expect(appSync.valueCount > 0)
        let differences = appSync.withoutTransportMetadata().differences(from: graphQL.withoutTransportMetadata())
        #expect(differences == [], "AppSync Events vs GraphQL")
    }

    @Test("the values my consumers rely on arrive", arguments: [TransportKind.appsync, .graphql])
    func whatMyConsumersRelyOn(_ kind: TransportKind) async throws {
        let (observed, _) = try await ParityFixtures.replay(kind)
        #expect(observed.devicePresence.map(\.online) == [true, false])
        #expect(observed.devicePresence.map(\.siteId) == ["site-1", "site-1"])
        #expect(observed.archive.map(\.status) == [.ready])
        #expect(observed.license.map(\.licensePhase) == [.noticePeriod])
        #expect(observed.role.map(\.reason) == ["promoted to admin"])
        // The legacy merged stream carries the same presence changes.
        #expect(observed.device.map(\.online) == [true, false])
    }
}
