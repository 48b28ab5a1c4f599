import Testing

@testable import SwitchboardSoak

/// The chaos soak, short (one transport at a time, to stay light beside the rest of the suite): a few seconds of publishing on every stream under every kind of fault,
/// with a fixed seed, on both transports. Memory is not judged here (the test process is shared
/// with the whole suite); `Scripts/soak.sh` judges it over minutes.
@Suite("Chaos soak, short", .serialized, .timeLimit(.minutes(3)))
struct ShortSoakTests {
    @Test("every event once and in order under drops, aborts, stalls, garbage, auth rejections and latency",
          arguments: [SoakTransport.appsync, .graphQLTransportWS])
    func shortSoak(transport: SoakTransport) async throws {
        var configuration = SoakConfiguration(duration: .seconds(4), rate: 200, transport: transport, seed: 42)
        configuration.faultPause = 50...400
        configuration.memoryTrend = nil
        configuration.settle = .milliseconds(200)
        configuration.sampleInterval = .milliseconds(500)
        configuration.quiesceTimeout = .seconds(20)
        let report = try await SoakRun.run(configuration)
        let text = report.lines().joined(separator: "\n")
        for (stream, tally) in zip(SoakStream.allCases, report.tallies) {
            // Nothing is lost on either transport, license and plan included.
            #expect(tally.missing == 0 && tally.unrecognised == 0, "\(stream)\n\(text)")
            if !transport.isLegacy { #expect(tally.duplicated == 0, "\(stream)\n\(text)") }
        }
        // Now and then one event arrives after a later one of its stream, on either transport,
        // under this fault mix; the cause is not found yet (issue 8's closing note).
        withKnownIssue("an event now and then out of order under faults (cause not yet found)", isIntermittent: true) {
            #expect(report.total.outOfOrder == 0, "\(text)")
        }
        if transport.isLegacy {
            withKnownIssue(
                "catch-up over legacy GraphQL can deliver an event published as the connection came back twice (its live copy has no timestamp to match it exactly, and the notifier prefers a repeat to a loss)",
                isIntermittent: true
            ) {
                #expect(report.total.duplicated == 0, "\(text)")
            }
        }
        #expect(report.runFailure == nil, "\(text)")
        #expect(report.total.published >= 600, "\(text)")
        #expect(report.reconnects >= 1, "\(text)")
        #expect(report.faults.count >= 4, "several kinds of fault were injected: \(text)")
    }
}
