import CoreMetrics
import Foundation
import Testing

@testable import SwitchboardSoak

/// Where the short soaks' backend runs.
///
/// In another process, as a backend does and as `switchboard soak` runs it: a child `switchboard
/// serve` built beside the test bundle. In the test process its connections would wait for the
/// cooperative pool behind hundreds of other tests, so a legacy subscription could take longer to
/// start on the server than a `plan` value takes to repeat at these rates (about 90 ms): an equal
/// pair logged in that time is the legacy contract's one ambiguity (RELIABILITY.md, "five minutes
/// per row"), and the contention that made it is the test process's, not a backend's. (The
/// executable's path is found as `CLIProcess` finds it.)
enum ShortSoak {
    static var switchboardExecutable: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        #if os(macOS)
            // The test bundle is …/PackageTests.xctest/Contents/MacOS/…: the products are beside the bundle.
            let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent() ?? directory
            return products.appendingPathComponent("switchboard")
        #else
            return directory.appendingPathComponent("switchboard")
        #endif
    }
}

/// The chaos soak, short (one transport at a time, to stay light beside the rest of the suite): a few seconds of publishing on every stream under every kind of fault,
/// with a fixed seed, on both transports. Memory is not judged here (the test process is shared
/// with the whole suite); `Scripts/soak.sh` judges it over minutes.
@Suite("Chaos soak, short", .serialized, .timeLimit(.minutes(3)))
struct ShortSoakTests {
    @Test("every event once and in order under drops, aborts, stalls, garbage, auth rejections and latency",
          arguments: [SoakTransport.appsync, .graphQLTransportWS])
    func shortSoak(transport: SoakTransport) async throws {
        var configuration = SoakConfiguration(duration: .seconds(4), rate: 200, transport: transport, seed: 42)
        configuration.emulator = .child(executable: ShortSoak.switchboardExecutable)
        configuration.faultPause = 20...200  // enough faults of several kinds even when a busy machine starts late
        configuration.memoryTrend = nil
        // Memory is not judged here; a trim would also race MemoryTrendTests' free-page check.
        configuration.releaseFreePagesBeforeSampling = false
        configuration.settle = .milliseconds(200)
        configuration.sampleInterval = .milliseconds(500)
        configuration.quiesceTimeout = .seconds(20)
        let report = try await SoakRun.run(configuration)
        let text = report.lines().joined(separator: "\n")
        for (stream, tally) in zip(SoakStream.allCases, report.tallies) {
            // Nothing is lost or repeated on either transport, license and plan included: over
            // legacy GraphQL live copies are told by fields, order and connection window.
            #expect(tally.missing == 0 && tally.unrecognised == 0 && tally.duplicated == 0, "\(stream)\n\(text)")
        }
        // Every stream in publishing order: a catch-up reads the log only once the subscriptions
        // are in place, so nothing published meanwhile comes with a later catch-up.
        #expect(report.total.outOfOrder == 0, "\(text)")
        #expect(report.runFailure == nil, "\(text)")
        // Exactly rate × duration on schedule, then the last round of one event per stream.
        #expect(report.total.published == 4 * 200 + SoakStream.allCases.count, "\(text)")
        #expect(report.reconnects >= 1, "\(text)")
        #expect(report.faults.count >= 4, "several kinds of fault were injected: \(text)")
        // The notifier's counters reach the report: nothing a bound drops in a short run.
        #expect(report.lines().contains("catch-up evictions (memory bounds): none"), "\(text)")
        #expect(report.consumerDrops.isEmpty, "\(text)")
    }
}

/// The same short soak with the client's wall clock off the backend's, and jumping: every
/// transport and dialect still delivers every event once and in order (contract §6, "Clocks").
/// Before the clocks were kept apart, half a second either way repeated thousands of legacy
/// events and lost some.
@Suite("Chaos soak, short, clocks apart", .serialized, .timeLimit(.minutes(3)))
struct ShortClockSkewSoakTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var transport: SoakTransport
        var clientOffset: Duration
        var backendOffset: Duration = .zero
        var jump: SoakClockJump?
        var testDescription: String {
            "\(transport): client \(clientOffset), emulator \(backendOffset)\(jump.map { ", jump \($0)" } ?? "")"
        }
    }

    @Test("every event once and in order with the clocks apart", arguments: [
        Case(transport: .graphQLWS, clientOffset: .milliseconds(500), jump: SoakClockJump(by: .seconds(-300), at: .seconds(2))),
        Case(transport: .graphQLTransportWS, clientOffset: .milliseconds(-500)),
        Case(transport: .appSyncGraphQL, clientOffset: .seconds(5), jump: SoakClockJump(by: .seconds(86_400), at: .seconds(2))),
        Case(transport: .appsync, clientOffset: .zero, backendOffset: .seconds(5)),
    ])
    func skewed(_ skew: Case) async throws {
        var configuration = SoakConfiguration(duration: .seconds(4), rate: 200, transport: skew.transport, seed: 43)
        configuration.emulator = .child(executable: ShortSoak.switchboardExecutable)
        configuration.faultPause = 20...200
        configuration.memoryTrend = nil
        configuration.releaseFreePagesBeforeSampling = false
        configuration.settle = .milliseconds(200)
        configuration.sampleInterval = .milliseconds(500)
        configuration.quiesceTimeout = .seconds(20)
        configuration.clockOffset = skew.clientOffset
        configuration.clockJump = skew.jump
        configuration.backendClockOffset = skew.backendOffset
        let report = try await SoakRun.run(configuration)
        let text = report.lines().joined(separator: "\n")
        #expect(report.total.missing == 0 && report.total.duplicated == 0 && report.total.unrecognised == 0, "\(text)")
        #expect(report.total.outOfOrder == 0, "\(text)")
        #expect(report.runFailure == nil, "\(text)")
        #expect(report.reconnects >= 1, "\(text)")
        #expect(report.lines().first?.contains(skew.clientOffset == .zero ? "emulator clock +5 s" : "client clock") == true, "\(text)")
    }
}

@Suite("Soak metrics")
struct SoakMetricsTests {
    @Test("counters are totalled by label and one dimension, and printed in the report")
    func totals() {
        let metrics = SoakMetrics()
        let evicted = "switchboard.notifier.catch_up.evicted"
        Counter(label: evicted, dimensions: [("kind", "held_envelopes")], factory: metrics).increment(by: 3)
        Counter(label: evicted, dimensions: [("kind", "held_envelopes")], factory: metrics).increment()
        Counter(label: evicted, dimensions: [("kind", "remembered_deliveries")], factory: metrics).increment(by: 2)
        Counter(label: "switchboard.notifier.delivered", dimensions: [("kind", "held_envelopes")], factory: metrics).increment()
        let reset = Counter(label: evicted, dimensions: [("kind", "caught_up_fingerprints")], factory: metrics)
        reset.increment()
        reset.reset()
        let totals = metrics.totals(of: evicted, by: "kind")
        #expect(totals == ["held_envelopes": 4, "remembered_deliveries": 2])
        var report = SoakReport(transport: .appsync, seed: 1, duration: .seconds(1), rate: 1, catchUp: true)
        report.catchUpEvictions = totals
        #expect(report.lines().contains("catch-up evictions (memory bounds): held_envelopes 4, remembered_deliveries 2"))
    }
}
