import Benchmark
import SwitchboardCore

enum ThroughputMetric {
    static func custom(_ name: String, prefersLarger: Bool) -> BenchmarkMetric {
        .custom(name, polarity: prefersLarger ? .prefersLarger : .prefersSmaller, useScalingFactor: false)
    }

    /// Rate, CPU per event and allocations per event of one reader.
    struct Reader {
        var rate: BenchmarkMetric
        var cpu: BenchmarkMetric
        var allocations: BenchmarkMetric

        init(_ name: String, unit: String) {
            rate = custom("\(name) \(unit)s/s", prefersLarger: true)
            cpu = custom("\(name) CPU ns/\(unit)", prefersLarger: false)
            allocations = custom("\(name) mallocs/\(unit)", prefersLarger: false)
        }

        var all: [BenchmarkMetric] { [rate, cpu, allocations] }
    }

    static let bare = Reader("bare NIO loop", unit: "frame")
    static let raw = Reader("raw NIO", unit: "frame")
    static let notifier = Reader("notifier", unit: "event")
    static let rawToBare = custom("raw/bare %", prefersLarger: true)
    static let ratio = custom("notifier/raw %", prefersLarger: true)

    static let all = bare.all + raw.all + notifier.all + [rawToBare, ratio]
}

func registerThroughput() {
    for kind in [TransportKind.appsync, .graphql] {
        for sender in ["blast", "emulator"] {
            Benchmark(
                "Throughput \(kind) (\(sender) sender)",
                configuration: .init(metrics: ThroughputMetric.all, warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
            ) { benchmark in
                let rates = sender == "blast"
                    ? try await Throughput.blast(kind, events: 200_000)
                    : try await Throughput.emulator(kind, events: 100_000)
                func record(_ reader: ThroughputMetric.Reader, _ cost: Cost) {
                    Report.record(benchmark, reader.rate, Int(cost.rate))
                    Report.record(benchmark, reader.cpu, cost.cpuNanosecondsPerEvent)
                    Report.record(benchmark, reader.allocations, tenths: cost.allocationsPerEvent)
                }
                func percent(_ part: Double, _ whole: Double) -> Int { Int((part / whole * 100).rounded()) }
                if let bare = rates.bare { record(ThroughputMetric.bare, bare) }
                record(ThroughputMetric.raw, rates.raw)
                record(ThroughputMetric.notifier, rates.notifier)
                if let bare = rates.bare { Report.record(benchmark, ThroughputMetric.rawToBare, percent(rates.raw.rate, bare.rate)) }
                Report.record(benchmark, ThroughputMetric.ratio, percent(rates.notifier.rate, rates.raw.rate))
            }
        }
    }
}
