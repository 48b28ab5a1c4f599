import Foundation
import Logging
import Switchboard
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// The events the parity fixtures hold: what your streams care about, as the backend publishes
/// them on AppSync Events (the emulator hands GraphQL subscribers the legacy shape). Change them,
/// then record again.
enum ParityFixture {
    static let userId = "user-1"
    static let orgId = "org-1"
    static let apiKey = "parity-api-key"
    static let timestamp = "2026-11-22T10:00:00.000Z"
    static let device = #""orgId":"org-1","siteId":"site-1","thingName":"front-door""#

    /// (channel under `vortex-app/user/{userId}/`, payload)
    static let events: [(String, String)] = [
        ("device/presenceChanged", #"{"eventType":"device/presenceChanged","timestamp":"\#(timestamp)",\#(device),"online":true}"#),
        ("archive/stateChanged",
         #"{"eventType":"archive/stateChanged","timestamp":"\#(timestamp)",\#(device),"archiveId":"clip-7","status":"Ready","videoLength":12.5,"createdAt":"\#(timestamp)"}"#),
        ("organization/licensePhaseChanged",
         #"{"eventType":"organization/licensePhaseChanged","timestamp":"\#(timestamp)","orgId":"org-1","licensePhase":"NoticePeriod"}"#),
        ("device/presenceChanged", #"{"eventType":"device/presenceChanged","timestamp":"\#(timestamp)",\#(device),"online":false}"#),
        ("roleChanged", #"{"eventType":"user/roleChanged","timestamp":"\#(timestamp)","reason":"promoted to admin"}"#),
    ]
}

/// Records `Fixtures/appsync.jsonl` and `Fixtures/<dialect>.jsonl` live: the emulator on
/// loopback, a notifier on each real transport with every stream observed, and a
/// `FixtureRecorder` around the WebSocket engine. Runs only when
/// `SWITCHBOARD_RECORD_EXAMPLE_FIXTURES` is set:
///
///     SWITCHBOARD_RECORD_EXAMPLE_FIXTURES=1 swift test --filter RecordExampleFixtures
@Suite(
    "Record the example parity fixtures",
    .enabled(if: ProcessInfo.processInfo.environment["SWITCHBOARD_RECORD_EXAMPLE_FIXTURES"] != nil),
    .serialized, .timeLimit(.minutes(1)))
struct RecordExampleFixtures {
    @Test("record", arguments: [TransportKind.appsync, .graphql])
    func record(_ kind: TransportKind) async throws {
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [ParityFixture.apiKey]),
            logger: Logger(label: "parity.emulator", factory: { _ in SwiftLogNoOpLogHandler() }))
        let fixture = try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            // A manual clock that never moves: no keep-alive or reconnect timer fires while recording.
            let clock = ManualClock()
            let recorder = FixtureRecorder(wrapping: NIOWebSocketConnector(), clock: clock)
            let notifier = BackendNotifier(
                transport: ParityTransports.make(
                    kind, host: "127.0.0.1:\(endpoints.port)", apiKey: ParityFixture.apiKey, connector: recorder, clock: clock),
                session: SessionSource(.signedIn(userId: ParityFixture.userId, orgId: ParityFixture.orgId) { _ in
                    ParityFixture.apiKey
                }))
            let entries = try await Self.recordEntries(notifier: notifier, emulator: emulator, recorder: recorder)
            return Fixture(
                header: .init(
                    scenario: "example-parity", transport: kind.rawValue,
                    dialect: kind == .appsync ? "appsync" : ParityTransports.legacyDialect.rawValue,
                    userId: ParityFixture.userId, orgId: ParityFixture.orgId,
                    summary: "presence online, archive Ready, license NoticePeriod, presence offline, role change"),
                entries: entries)
        }
        #expect(!fixture.jsonLines.contains(ParityFixture.apiKey))
        try fixture.write(to: ParityFixtures.url(kind))
    }

    /// Observes every stream while the emulator publishes the events, then ends the connection
    /// normally; returns the recording up to the moment the client came to rest.
    static func recordEntries(
        notifier: BackendNotifier, emulator: SwitchboardEmulator, recorder: FixtureRecorder
    ) async throws -> [Fixture.Entry] {
        let (settled, settle) = AsyncStream.makeStream(of: [Fixture.Entry].self)
        _ = try await NotifierObservation.observe(notifier) { states in
            // Five subscriptions cover every stream on either transport.
            while emulator.subscriptionCount < 5 { try await Task.sleep(for: .milliseconds(2)) }
            for (channel, payload) in ParityFixture.events {
                try emulator.publish(channel: "vortex-app/user/\(ParityFixture.userId)/\(channel)", event: payload)
            }
            // Each event reaches the client as one data frame, on both protocols.
            while recorder.dataFramesReceived < ParityFixture.events.count { try await Task.sleep(for: .milliseconds(2)) }
            _ = emulator.dropAllConnections(code: 1000, reason: "end of recording")
            await states.settled(afterAttempts: recorder.connectAttempts)
            // What the client says when it is shut down afterwards is not part of the recording.
            settle.yield(recorder.entries)
            settle.finish()
        }
        return await settled.first { _ in true } ?? []
    }
}

extension FixtureRecorder {
    /// How many data frames (`data` on AppSync Events and graphql-ws, `next` on
    /// graphql-transport-ws) the client has received so far.
    var dataFramesReceived: Int {
        entries.filter { entry in
            guard case .frame(.serverToClient, let text) = entry.event,
                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            else { return false }
            return ["data", "next"].contains(object["type"] as? String)
        }.count
    }
}
