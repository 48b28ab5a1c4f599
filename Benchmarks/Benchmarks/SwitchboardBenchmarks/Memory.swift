import Benchmark
import Foundation
import NIOConcurrencyHelpers
import Switchboard
import SwitchboardCore
import SwitchboardEmulator
import MallocInterposerSwift

enum MemoryMetric {
    static let perStream = BenchmarkMetric.custom("bytes per consumer stream", polarity: .prefersSmaller, useScalingFactor: false)
    static let perBrokerStream = BenchmarkMetric.custom("bytes per broker stream", polarity: .prefersSmaller, useScalingFactor: false)
    static let peakGrowth = BenchmarkMetric.custom("peak heap growth KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let backlog = BenchmarkMetric.custom("events buffered at peak", polarity: .prefersSmaller, useScalingFactor: false)
    static let perBuffered = BenchmarkMetric.custom("bytes per buffered event", polarity: .prefersSmaller, useScalingFactor: false)
}

/// Memory: the heap cost of one live subscription, and the heap growth with a consumer ten
/// times slower than the producer. Heap = bytes requested from malloc and not yet freed, as the
/// benchmark tool's malloc interposer counts them (allocator overhead not included), in this
/// whole process while counting is on.
func registerMemory() {
    Benchmark(
        "Memory per live subscription",
        configuration: .init(metrics: [MemoryMetric.perStream, MemoryMetric.perBrokerStream], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)
    ) { benchmark in
        Report.record(benchmark, MemoryMetric.perStream, try await Memory.bytesPerConsumerStream(count: 10_000))
        Report.record(benchmark, MemoryMetric.perBrokerStream, await Memory.bytesPerBrokerStream(count: 10_000))
    }
    Benchmark(
        "Memory with a 10x slower consumer",
        configuration: .init(
            metrics: [MemoryMetric.peakGrowth, MemoryMetric.backlog, MemoryMetric.perBuffered, .peakMemoryResident],
            warmupIterations: 0,
            maxIterations: 1)
    ) { benchmark in
        let result = try await Memory.slowConsumer(producerRate: 2_000, seconds: 5)
        Report.record(benchmark, MemoryMetric.peakGrowth, result.peakGrowth / 1024)
        Report.record(benchmark, MemoryMetric.backlog, result.backlog)
        Report.record(benchmark, MemoryMetric.perBuffered, result.backlog > 0 ? result.peakGrowth / result.backlog : 0)
    }
}

enum Memory {
    /// Bytes requested from malloc and not freed since counting began (``counting(_:)``).
    static func heapInUse() -> Int {
        let statistics = MallocInterposerSwift.getStatistics()
        return statistics.mallocBytesCount - statistics.freeBytesCount
    }

    /// Runs `body` with the interposer counting allocations.
    static func counting<R>(_ body: () async throws -> R) async rethrows -> R {
        MallocInterposerSwift.hook()
        defer { MallocInterposerSwift.unhook() }
        return try await body()
    }

    /// `count` more consumers of one notifier stream (`archiveValues()`), connected to the
    /// emulator: each is an `AsyncStream`, a broker subscription and the notifier's bookkeeping.
    static func bytesPerConsumerStream(count: Int) async throws -> Int {
        try await withRunningEmulator(configuration: Rig.emulatorConfiguration()) { emulator, endpoints in
            let notifier = Rig.notifier(.appsync, port: endpoints.port)
            return try await Rig.running(notifier) {
                var streams: [AsyncStream<ArchiveStateOutput>] = [await notifier.archiveValues()]
                try await Rig.wait("the archive subscription") { emulator.subscriptionCount >= 1 }
                streams.reserveCapacity(count + 1)
                let (before, after) = await counting {
                    let before = heapInUse()
                    for _ in 0..<count { streams.append(await notifier.archiveValues()) }
                    return (before, heapInUse())
                }
                withExtendedLifetime(streams) {}
                return (after - before) / count
            }
        }
    }

    /// `count` stream subscriptions of one broker (`events(of:)`), the layer below.
    static func bytesPerBrokerStream(count: Int) async -> Int {
        let broker = EventBroker()
        var streams: [EventStream<EventRecord<ArchiveStateOutput>>] = []
        streams.reserveCapacity(count)
        let (before, after) = await counting {
            let before = heapInUse()
            for _ in 0..<count { streams.append(broker.events(of: ArchiveStateOutput.self)) }
            return (before, heapInUse())
        }
        withExtendedLifetime(streams) {}
        return (after - before) / count
    }

    struct SlowConsumer {
        var peakGrowth: Int
        var backlog: Int
    }

    /// The emulator publishes `producerRate` archive events per second for `seconds` to a
    /// notifier (AppSync Events) whose one consumer takes ten times as long per event as the
    /// producer; the heap is sampled every 10 ms.
    static func slowConsumer(producerRate: Int, seconds: Int) async throws -> SlowConsumer {
        try await withRunningEmulator(configuration: Rig.emulatorConfiguration()) { emulator, endpoints in
            let notifier = Rig.notifier(.appsync, port: endpoints.port)
            return try await Rig.running(notifier) {
                let values = await notifier.archiveValues()
                try await Rig.wait("the archive subscription") { emulator.subscriptionCount >= 1 }
                let consumed = NIOLockedValueBox(0)
                let period = Duration.seconds(1) / producerRate
                let events = producerRate * seconds
                MallocInterposerSwift.hook()
                defer { MallocInterposerSwift.unhook() }
                let baseline = heapInUse()
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in values {
                            try await Task.sleep(for: period * 10)
                            consumed.withLockedValue { $0 += 1 }
                        }
                    }
                    let clock = ContinuousClock()
                    let start = clock.now
                    var peak = baseline
                    var backlogAtPeak = 0
                    var nextSample = start
                    for sequence in 0..<events {
                        try await clock.sleep(until: start + period * sequence)
                        try emulator.publish(channel: ArchivePayload.channel, event: ArchivePayload.event(archiveId: String(sequence)))
                        if clock.now >= nextSample {
                            nextSample = clock.now + .milliseconds(10)
                            let heap = heapInUse()
                            if heap > peak {
                                peak = heap
                                backlogAtPeak = sequence + 1 - consumed.withLockedValue { $0 }
                            }
                        }
                    }
                    group.cancelAll()
                    return SlowConsumer(peakGrowth: peak - baseline, backlog: backlogAtPeak)
                }
            }
        }
    }
}
