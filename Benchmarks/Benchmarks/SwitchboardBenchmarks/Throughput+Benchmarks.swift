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
    static let peer = Reader("peer", unit: "event")
    static let notifier = Reader("notifier", unit: "event")
    static let rawToBare = custom("raw/bare %", prefersLarger: true)
    static let ratio = custom("notifier/raw %", prefersLarger: true)
    static let cpuToPeer = custom("notifier/peer CPU %", prefersLarger: false)
    static let allocationsToPeer = custom("notifier/peer mallocs %", prefersLarger: false)

    static let all = bare.all + raw.all + peer.all + notifier.all + [rawToBare, ratio, cpuToPeer, allocationsToPeer]
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
                if let peer = rates.peer { record(ThroughputMetric.peer, peer) }
                record(ThroughputMetric.notifier, rates.notifier)
                if let bare = rates.bare { Report.record(benchmark, ThroughputMetric.rawToBare, percent(rates.raw.rate, bare.rate)) }
                Report.record(benchmark, ThroughputMetric.ratio, percent(rates.notifier.rate, rates.raw.rate))
                if let peer = rates.peer {
                    Report.record(
                        benchmark, ThroughputMetric.cpuToPeer, percent(rates.notifier.cpuPerEvent.seconds, peer.cpuPerEvent.seconds))
                    Report.record(
                        benchmark, ThroughputMetric.allocationsToPeer, percent(rates.notifier.allocationsPerEvent, peer.allocationsPerEvent))
                }
            }
        }
    }
}
