import Foundation
import Switchboard
import SwitchboardTesting
import Testing

/// The recorder and the player agree: a scenario recorded live against the emulator, replayed
/// through the same transport, gives the consumers exactly what they got live.
///
/// Set `SWITCHBOARD_RECORD_FIXTURES=1` to also write each recording over the committed fixture
/// in `Fixtures/` (how the fixtures are made).
@Suite("Fixtures: record live, replay, same result", .serialized, .timeLimit(.minutes(1)))
struct FixtureRoundTripTests {
    static let cases: [(Recording.Scenario, MigrationTransport)] = Recording.Scenario.recorded.flatMap { scenario in
        MigrationTransport.allCases.map { (scenario, $0) }
    }

    @Test("a live recording replays to the same observation", arguments: cases)
    func roundTrip(scenario: Recording.Scenario, transport: MigrationTransport) async throws {
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
