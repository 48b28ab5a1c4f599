import Benchmark
import Foundation
import NIOConcurrencyHelpers
import Switchboard
import SwitchboardCore
import SwitchboardEmulator

enum LatencyMetric {
    static let p50 = BenchmarkMetric.custom("p50 µs", polarity: .prefersSmaller, useScalingFactor: false)
    static let p99 = BenchmarkMetric.custom("p99 µs", polarity: .prefersSmaller, useScalingFactor: false)
    static let p999 = BenchmarkMetric.custom("p99.9 µs", polarity: .prefersSmaller, useScalingFactor: false)
}

/// Send to consumer on loopback at 1,000 events per second, three ways: the blast server pacing
/// raw frames to the notifier (the client alone), the same frames read by the NIO engine alone
/// (the floor), and the emulator publishing in process (`SwitchboardEmulator.publish`, its own
/// publish path included). The notifier's consumer reads typed archive values; each event carries
/// its sequence number in `archiveId`, and the latency is the time from just before the send to
/// the reader receiving the value (one process, one monotonic clock).
func registerLatency() {
    for kind in [TransportKind.appsync, .graphql] {
        // The client alone: the blast server paces raw frames itself, so the emulator's own
        // publish path (its bus, its writer task) is not in the figure.
        Benchmark("Latency \(kind) at 1,000 events/s (paced raw sender)", configuration: Latency.configuration) { benchmark in
            Latency.record(benchmark, try await Latency.runRaw(kind, events: 10_000, rate: 1_000))
        }
        // The floor under it: the NIO engine alone reading the same paced frames (nothing decoded
        // but the sequence number), in the same process, so the machine's own tail shows.
        Benchmark("Latency \(kind) at 1,000 events/s (paced raw sender, engine alone)", configuration: Latency.configuration) { benchmark in
            Latency.record(benchmark, try await Latency.runEngineAlone(kind, events: 10_000, rate: 1_000))
        }
        Benchmark("Latency \(kind) at 1,000 events/s", configuration: Latency.configuration) { benchmark in
            Latency.record(benchmark, try await Latency.run(kind, events: 10_000, rate: 1_000))
        }
    }
}

enum Latency {
    static var configuration: Benchmark.Configuration {
        .init(metrics: [LatencyMetric.p50, LatencyMetric.p99, LatencyMetric.p999], warmupIterations: 0, maxIterations: 1)
    }

    /// Records the p50, p99 and p99.9 of `samples` (µs).
    static func record(_ benchmark: Benchmark, _ samples: [Double]) {
        Report.record(benchmark, LatencyMetric.p50, percentile(samples, 0.50))
        Report.record(benchmark, LatencyMetric.p99, percentile(samples, 0.99))
        Report.record(benchmark, LatencyMetric.p999, percentile(samples, 0.999))
    }

    /// Reads the notifier's next archive value: its `archiveId` ("" for none) and when it came.
    static func next(_ values: inout AsyncStream<ArchiveStateOutput>.Iterator) async -> (String, ContinuousClock.Instant)? {
        guard let value = await values.next() else { return nil }
        return (value.archiveId ?? "", ContinuousClock.now)
    }
    /// The latency of each of `events` events, in microseconds, sent at `rate` per second.
    static func run(_ kind: TransportKind, events: Int, rate: Int) async throws -> [Double] {
        try await withRunningEmulator(configuration: Rig.emulatorConfiguration()) { emulator, endpoints in
            let notifier = Rig.notifier(kind, port: endpoints.port)
            return try await Rig.running(notifier) {
                var values = await notifier.archiveValues().makeAsyncIterator()
                try await Rig.wait("the archive subscription") { emulator.subscriptionCount >= 1 }
                return try await measure(next: { await next(&values) }, events: events, rate: rate) { archiveId in
                    let event = ArchivePayload.event(archiveId: archiveId)
                    return { try emulator.publish(channel: ArchivePayload.channel, event: event) }
                }
            }
        }
    }

    /// The same measurement with the blast server as the sender: it writes each frame itself
    /// at `rate` per second (the frame's `archiveId` is its sequence number), and the latency is
    /// the time from just before the frame is handed to the server's writer to the consumer
    /// receiving the typed value.
    static func runRaw(_ kind: TransportKind, events: Int, rate: Int) async throws -> [Double] {
        try await BlastServer.with { server in
            let notifier = Rig.notifier(kind, port: server.port)
            return try await Rig.running(notifier) {
                var values = await notifier.archiveValues().makeAsyncIterator()
                let subscription = try await server.waitForSubscription { $0.request.contains(ArchivePayload.marker(kind)) }
                return try await measure(next: { await next(&values) }, events: events, rate: rate) {
                    pacedFrame(kind, server: server, subscription: subscription, archiveId: $0)
                }
            }
        }
    }

    /// The same paced frames read by the NIO engine alone (``RawClient``): each frame's sequence
    /// number is picked out of its text, nothing else is decoded.
    static func runEngineAlone(_ kind: TransportKind, events: Int, rate: Int) async throws -> [Double] {
        try await BlastServer.with { server in
            var client = try await RawClient.connect(kind, port: server.port, authorized: false)
            try await client.subscribe(id: "raw-1")
            let subscription = try await server.waitForSubscription { $0.id == "raw-1" }
            var frames = client.frames
            let samples = try await measure(
                next: {
                    guard case .message(.text(let text))? = try await frames.next() else { return nil }
                    // The time first: picking the id out is the floor's own work, not the socket's.
                    let at = ContinuousClock.now
                    return (archiveId(inFrame: text), at)
                }, events: events, rate: rate
            ) { pacedFrame(kind, server: server, subscription: subscription, archiveId: $0) }
            await client.connection.close(code: .normalClosure, reason: "")
            return samples
        }
    }

    /// A send of one archive frame carrying `archiveId`, encoded ahead.
    private static func pacedFrame(
        _ kind: TransportKind, server: BlastServer, subscription: BlastServer.Subscription, archiveId: String
    ) -> @Sendable () throws -> Void {
        let frame =
            kind == .appsync
            ? ArchivePayload.appSyncFrame(id: subscription.id, archiveId: archiveId)
            : ArchivePayload.graphQLFrame(id: subscription.id, archiveId: archiveId)
        return { server.send(frame, to: subscription) }
    }

    /// The `archiveId` in a frame's text, escaped (an AppSync Events `event` string) or not: the
    /// letters and digits after the key; empty when there is none.
    static func archiveId(inFrame text: String) -> String {
        guard let key = text.range(of: "archiveId") else { return "" }
        let value = text[key.upperBound...].drop { !$0.isLetter && !$0.isNumber }
        return String(value.prefix { $0.isLetter || $0.isNumber })
    }

    /// Warms the path with 100 events, then sends `events` more at `rate` per second, each
    /// carrying its sequence number as `archiveId`, and returns each one's latency in
    /// microseconds: from just before `sender(archiveId)`'s send ran to the reader receiving
    /// the value (`next` gives each value's `archiveId`, "" for none, and when it arrived; nil at
    /// the end). The sends are prepared (encoded) ahead, so the sender's own work stays out.
    private static func measure(
        next: () async throws -> (String, ContinuousClock.Instant)?, events: Int, rate: Int,
        sender: (String) -> @Sendable () throws -> Void
    ) async throws -> [Double] {
        // Warm the path (and make sure the subscription is live) before measuring.
        for warm in 0..<100 {
            try sender("w\(warm)")()
            _ = try await next()
        }
        let clock = ContinuousClock()
        let sent = NIOLockedValueBox([ContinuousClock.Instant?](repeating: nil, count: events))
        let period = Duration.seconds(1) / rate
        let sends = (0..<events).map { sender(String($0)) }
        async let sending: Void = {
            let start = clock.now
            for sequence in 0..<events {
                try await clock.sleep(until: start + period * sequence)
                sent.withLockedValue { $0[sequence] = clock.now }
                try sends[sequence]()
            }
        }()
        var latencies: [Double] = []
        latencies.reserveCapacity(events)
        while latencies.count < events, let (archiveId, now) = try await next() {
            guard let sequence = Int(archiveId),
                let at = sent.withLockedValue({ $0[sequence] })
            else { continue }
            latencies.append(at.duration(to: now).seconds * 1e6)
        }
        try await sending
        return latencies
    }

    static func percentile(_ samples: [Double], _ p: Double) -> Int {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
        return Int(sorted[max(0, index)].rounded())
    }
}
