import Testing

@testable import SwitchboardSoak

/// The chaos soak, short: a few seconds of publishing on every stream under every kind of fault,
/// with a fixed seed, on both transports. Memory is not judged here (the test process is shared
/// with the whole suite); `Scripts/soak.sh` judges it over minutes.
@Suite("Chaos soak, short", .timeLimit(.minutes(3)))
struct ShortSoakTests {
    @Test("every event once and in order under drops, aborts, stalls, garbage, auth rejections and latency",
          arguments: [SoakTransport.appsync, .graphQLTransportWS])
    func shortSoak(transport: SoakTransport) async throws {
        var configuration = SoakConfiguration(duration: .seconds(4), rate: 300, transport: transport, seed: 42)
        configuration.faultPause = 50...400
        configuration.memoryTrend = nil
        configuration.settle = .milliseconds(200)
        configuration.sampleInterval = .milliseconds(500)
        configuration.quiesceTimeout = .seconds(20)
        let report = try await SoakRun.run(configuration)
        let text = report.lines().joined(separator: "\n")
        // Over the legacy transport, license and plan events have no field that tells two equal
        // ones apart (no timestamp): see the known issue below.
        let countedPerValue: Set<SoakStream> = transport.isLegacy ? [.license, .plan] : []
        for (stream, tally) in zip(SoakStream.allCases, report.tallies) where !countedPerValue.contains(stream) {
            #expect(tally.missing == 0 && tally.duplicated == 0 && tally.outOfOrder == 0 && tally.unrecognised == 0, "\(stream)\n\(text)")
        }
        if transport.isLegacy {
            withKnownIssue(
                "catch-up over legacy GraphQL drops a live license or plan event equal to one it fetched (no timestamp to tell them apart)",
                isIntermittent: true
            ) {
                #expect(report.passed, "\(text)")
            }
        } else {
            #expect(report.passed, "\(text)")
        }
        #expect(report.total.published >= 1_000, "\(text)")
        #expect(report.reconnects >= 3, "\(text)")
        #expect(report.faults.count >= 4, "several kinds of fault were injected: \(text)")
    }
}
