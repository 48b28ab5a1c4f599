import Benchmark
import SwitchboardCore

enum ThroughputMetric {
    static let notifier = BenchmarkMetric.custom("notifier events/s", polarity: .prefersLarger, useScalingFactor: false)
    static let raw = BenchmarkMetric.custom("raw NIO frames/s", polarity: .prefersLarger, useScalingFactor: false)
    static let ratio = BenchmarkMetric.custom("notifier/raw %", polarity: .prefersLarger, useScalingFactor: false)
    static let bare = BenchmarkMetric.custom("bare NIO loop frames/s", polarity: .prefersLarger, useScalingFactor: false)
    static let rawToBare = BenchmarkMetric.custom("raw/bare %", polarity: .prefersLarger, useScalingFactor: false)
    static let notifierCPU = BenchmarkMetric.custom("notifier CPU ns/event", polarity: .prefersSmaller, useScalingFactor: false)
}

func registerThroughput() {
    let metrics = [
        ThroughputMetric.notifier, ThroughputMetric.raw, ThroughputMetric.ratio, ThroughputMetric.bare, ThroughputMetric.rawToBare,
        ThroughputMetric.notifierCPU,
    ]
    for kind in [TransportKind.appsync, .graphql] {
        for sender in ["blast", "emulator"] {
            Benchmark(
                "Throughput \(kind) (\(sender) sender)",
                configuration: .init(metrics: metrics, warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
            ) { benchmark in
                let rates = sender == "blast"
                    ? try await Throughput.blast(kind, events: 200_000)
                    : try await Throughput.emulator(kind, events: 100_000)
                Report.record(benchmark, ThroughputMetric.notifier, Int(rates.notifier))
                Report.record(benchmark, ThroughputMetric.raw, Int(rates.raw))
                Report.record(benchmark, ThroughputMetric.ratio, Int((rates.ratio * 100).rounded()))
                Report.record(benchmark, ThroughputMetric.notifierCPU, Int((rates.notifierCPU.seconds * 1e9).rounded()))
                if let bare = rates.bare {
                    Report.record(benchmark, ThroughputMetric.bare, Int(bare))
                    Report.record(benchmark, ThroughputMetric.rawToBare, Int((rates.raw / bare * 100).rounded()))
                }
            }
        }
    }
}
