import Foundation
import LegacyServerHarness
import Switchboard
import SwitchboardTesting
import Testing

/// The recorder and the player agree: a scenario recorded live, replayed through the same
/// transport, gives the consumers exactly what they got live.
///
/// Set `SWITCHBOARD_RECORD_FIXTURES=1` to also write each recording over the committed fixture
/// in `Fixtures/` (how the fixtures are made: `Scripts/record-fixtures.sh`).
@Suite("Fixtures: record live against the emulator, replay, same result", .serialized, .timeLimit(.minutes(1)))
struct FixtureRoundTripTests {
    static let cases: [(Recording.Scenario, MigrationTransport)] = Recording.Scenario.recorded.flatMap { scenario in
        MigrationTransport.allCases.filter { !$0.recordsAgainstLegacyServer }.map { (scenario, $0) }
    }

    @Test("a live recording replays to the same observation", arguments: cases)
    func roundTrip(scenario: Recording.Scenario, transport: MigrationTransport) async throws {
        try await FixtureRoundTrip.check(scenario, transport)
    }
}

/// The same for the legacy dialects a real GraphQL server speaks, recorded against it
/// (`LegacyGraphQLServer`: strawberry-graphql serving contract §4). Skipped locally, with the
/// reason, when `SWITCHBOARD_LEGACY_SERVER_PYTHON` is unset; CI sets it, and without it these
/// tests fail there.
@Suite(
    "Fixtures: record live against a real GraphQL server (strawberry), replay, same result",
    .enabled(if: LegacyGraphQLServer.shouldRun, Comment(rawValue: LegacyGraphQLServer.skipReason)),
    .serialized, .timeLimit(.minutes(1)))
struct LegacyServerFixtureRoundTripTests {
    static let cases: [(Recording.Scenario, MigrationTransport)] = Recording.Scenario.recorded.flatMap { scenario in
        MigrationTransport.allCases.filter(\.recordsAgainstLegacyServer).map { (scenario, $0) }
    }

    @Test("a live recording replays to the same observation", arguments: cases)
    func roundTrip(scenario: Recording.Scenario, transport: MigrationTransport) async throws {
        try await FixtureRoundTrip.check(scenario, transport)
    }
}

enum FixtureRoundTrip {
    static func check(_ scenario: Recording.Scenario, _ transport: MigrationTransport) async throws {
        let (fixture, live) = try await Recording.record(scenario, over: transport)
        if ProcessInfo.processInfo.environment["SWITCHBOARD_RECORD_FIXTURES"] != nil {
            let url = Fixtures.url(scenario.rawValue, transport)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fixture.write(to: url)
        }
        // The file format round-trips.
        #expect(try Fixture(jsonLines: fixture.jsonLines) == fixture)
        // Credentials never reach the recording.
        #expect(!fixture.jsonLines.contains(Recording.apiKey))

        let (replayed, report) = try await transport.replay(fixture)
        if report.linesPlayed != fixture.entries.count || !report.mismatches.isEmpty {
            // Keep what was recorded, to see where the replay parted from it.
            Attachment.record(fixture.jsonLines, named: "\(scenario.rawValue)-\(transport.rawValue).jsonl")
        }
        #expect(report.mismatches == [])
        #expect(report.linesPlayed == fixture.entries.count)
        #expect(replayed.differences(from: live) == [])
        #expect(replayed == live)
    }
}
