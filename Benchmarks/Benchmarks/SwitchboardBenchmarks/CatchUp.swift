import Benchmark
import Foundation
import SwitchboardEmulator
import SwitchboardNIO
import SwitchboardSync

enum CatchUpMetric {
    static let stream = BenchmarkMetric.custom("ms over the sync stream", polarity: .prefersSmaller, useScalingFactor: false)
    static let rest = BenchmarkMetric.custom("ms over REST pages of 100", polarity: .prefersSmaller, useScalingFactor: false)
    static let ratio = BenchmarkMetric.custom("REST ÷ stream, in hundredths", polarity: .prefersLarger, useScalingFactor: false)
}

/// Issue 7's comparison (seed 004 claims 5–10x): catching up on 10,000 logged events with a
/// simulated 20 ms round trip, over the WebSocket sync stream (one round trip, then batches of
/// 500) and over the REST fallback (`GET /sync/pull`, pages of 100, one round trip each). Both
/// runs use the same `SyncClient` against the same emulator; the REST run is the client's real
/// fallback path, so it includes the refused stream upgrade (404) before the first page.
func registerCatchUp() {
    Benchmark(
        "Catch-up 10,000 events, 20 ms round trip",
        configuration: .init(
            metrics: [CatchUpMetric.stream, CatchUpMetric.rest, CatchUpMetric.ratio], warmupIterations: 0,
            maxDuration: .seconds(120), maxIterations: 3)
    ) { benchmark in
        let (stream, rest) = try await CatchUpComparison.run(events: 10_000, roundTrip: .milliseconds(20))
        Report.record(benchmark, CatchUpMetric.stream, Int((stream.seconds * 1e3).rounded()))
        Report.record(benchmark, CatchUpMetric.rest, Int((rest.seconds * 1e3).rounded()))
        Report.record(benchmark, CatchUpMetric.ratio, Int((rest.seconds / stream.seconds * 100).rounded()))
    }
}

enum CatchUpComparison {
    static func run(events: Int, roundTrip: Duration) async throws -> (stream: Duration, rest: Duration) {
        var configuration = Rig.emulatorConfiguration()
        configuration.eventLogCapacity = events * 2
        return try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let payload = #"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"caught up"}"#
            for _ in 0..<events { try emulator.publish(channel: "vortex-app/user/u1/roleChanged", event: payload) }
            emulator.setSyncRoundTripLatency(roundTrip)
            let client = SyncClient(
                configuration: .init(baseURL: URL(string: endpoints.syncBaseURL)!), connector: NIOWebSocketConnector())
            let clock = ContinuousClock()

            let streamStart = clock.now
            let overStream = try await client.catchUp(store: InMemoryCheckpointStore()) { _ in }
            let stream = streamStart.duration(to: clock.now)
            guard overStream.completedOverStream, overStream.deliveredEvents == events else {
                throw BenchmarkFailure("the stream run delivered \(overStream.deliveredEvents) events, fallback: \(String(describing: overStream.streamFailure))")
            }

            emulator.setSyncStreamFault(.disabled)
            let restStart = clock.now
            let overREST = try await client.catchUp(store: InMemoryCheckpointStore()) { _ in }
            let rest = restStart.duration(to: clock.now)
            guard !overREST.completedOverStream, overREST.deliveredEvents == events else {
                throw BenchmarkFailure("the REST run delivered \(overREST.deliveredEvents) events over \(overREST.pullRequests) pages")
            }
            return (stream, rest)
        }
    }
}
