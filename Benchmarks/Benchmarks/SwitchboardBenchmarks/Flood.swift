import Benchmark
import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Switchboard
import SwitchboardCore
import SwitchboardNIO
import MallocInterposerSwift

enum FloodMetric {
    static let offered = BenchmarkMetric.custom("frames offered", polarity: .prefersLarger, useScalingFactor: false)
    static let delivered = BenchmarkMetric.custom("events delivered", polarity: .prefersLarger, useScalingFactor: false)
    static let heldHeapGrowth = BenchmarkMetric.custom("peak heap growth while held KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let heldResidentGrowth = BenchmarkMetric.custom("peak resident growth while held KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let heapGrowth = BenchmarkMetric.custom("peak heap growth KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let residentGrowth = BenchmarkMetric.custom("peak resident growth KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let finalHeapGrowth = BenchmarkMetric.custom("heap growth after the drain KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let backlog = BenchmarkMetric.custom("consumer stream backlog at peak", polarity: .prefersSmaller, useScalingFactor: false)
    static let samplingGap = BenchmarkMetric.custom("longest sampling gap ms", polarity: .prefersSmaller, useScalingFactor: false)
}

/// Issue 30's flood: a sender in a child process (this binary, re-executed) offers 1,000,000
/// archive frames to a notifier whose actor is held busy (its first event's handler waits) for
/// three seconds; then it is let go. With read back-pressure the socket stops reading at the
/// connection's budget, TCP holds the rest back in the sender, and every frame is delivered once
/// reading resumes.
///
/// The measured process holds only the client. Heap = bytes requested from malloc and not freed
/// (the benchmark tool's interposer), resident = the process's RSS (`/proc/self/statm`); a
/// thread of its own (not the cooperative pool, one of whose two threads the hold blocks)
/// samples both every 10 ms from before the blast until a second after the last delivery.
/// `SWITCHBOARD_FLOOD_CURVE=<directory>` writes each run's samples there as CSV;
/// `SWITCHBOARD_FLOOD_CONSUMER=none` gives the consumer stream a buffer of one value and does not
/// drain it (the counting handler still sees every event), to tell what the stream's buffer holds;
/// `SWITCHBOARD_FLOOD_HOLD=<seconds>` changes the hold (3 s), `SWITCHBOARD_FLOOD_BUDGET=<bytes>`
/// the connection's inbound budget (1 MiB).
func registerFlood() {
    for kind in [TransportKind.appsync, .graphql] {
        Benchmark(
            "Flood \(kind) (notifier held busy)",
            configuration: .init(
                metrics: [FloodMetric.offered, FloodMetric.delivered, FloodMetric.heldHeapGrowth, FloodMetric.heldResidentGrowth,
                          FloodMetric.heapGrowth, FloodMetric.residentGrowth, FloodMetric.finalHeapGrowth, FloodMetric.backlog,
                          FloodMetric.samplingGap],
                warmupIterations: 0, maxDuration: .seconds(300), maxIterations: 1)
        ) { benchmark in
            let consumer = ProcessInfo.processInfo.environment["SWITCHBOARD_FLOOD_CONSUMER"] != "none"
            let holdSeconds = ProcessInfo.processInfo.environment["SWITCHBOARD_FLOOD_HOLD"].flatMap { Int($0) } ?? 3
            let result = try await Flood.run(kind, frames: 1_000_000, hold: .seconds(holdSeconds), consumerStream: consumer)
            Report.record(benchmark, FloodMetric.offered, result.offered)
            Report.record(benchmark, FloodMetric.delivered, result.delivered)
            Report.record(benchmark, FloodMetric.heldHeapGrowth, result.heldHeapGrowth / 1024)
            Report.record(benchmark, FloodMetric.heldResidentGrowth, result.heldResidentGrowth / 1024)
            Report.record(benchmark, FloodMetric.heapGrowth, result.heapGrowth / 1024)
            Report.record(benchmark, FloodMetric.residentGrowth, result.residentGrowth / 1024)
            Report.record(benchmark, FloodMetric.finalHeapGrowth, result.finalHeapGrowth / 1024)
            Report.record(benchmark, FloodMetric.backlog, result.backlog)
            Report.record(benchmark, FloodMetric.samplingGap, result.longestGapMilliseconds)
            if let directory = ProcessInfo.processInfo.environment["SWITCHBOARD_FLOOD_CURVE"] {
                try result.curve.write(toFile: "\(directory)/flood-\(kind)\(consumer ? "" : "-nostream").csv", atomically: true, encoding: .utf8)
            }
        }
    }
}

enum Flood {
    struct Result {
        var offered: Int
        var delivered: Int
        var heldHeapGrowth: Int
        var heldResidentGrowth: Int
        var heapGrowth: Int
        var residentGrowth: Int
        var finalHeapGrowth: Int
        var backlog: Int
        var longestGapMilliseconds: Int
        /// `milliseconds,phase,heap,resident,delivered,drained` per sample, from the baseline.
        var curve: String
    }

    static func run(_ kind: TransportKind, frames: Int, hold: Duration, consumerStream: Bool) async throws -> Result {
        let sender = try SenderProcess(kind: kind)
        defer { sender.stop() }
        var configuration = BackendNotifier.Configuration()
        if !consumerStream { configuration.bufferingPolicy = .bufferingNewest(1) }
        var connection = NIOWebSocketConnector.Configuration()
        if let budget = ProcessInfo.processInfo.environment["SWITCHBOARD_FLOOD_BUDGET"].flatMap({ Int($0) }) {
            connection.maximumBufferedInboundBytes = budget
        }
        let notifier = Rig.notifier(
            kind, port: sender.port, configuration: configuration, connector: NIOWebSocketConnector(configuration: connection))
        return try await Rig.running(notifier) {
            // The stream subscribes the archive channel; a task drains it (its buffer may drop
            // under the burst), and the handler below counts the events the notifier publishes.
            let delivered = NIOLockedValueBox(0)
            let drained = NIOLockedValueBox(0)
            let archives = await notifier.archiveValues()
            let drain = Task {
                guard consumerStream else { return }
                for await _ in archives { drained.withLockedValue { $0 += 1 } }
            }
            defer { drain.cancel() }
            MallocInterposerSwift.hook()
            defer { MallocInterposerSwift.unhook() }
            let sampler = FloodSampler(delivered: delivered, drained: drained)
            let counting = notifier.broker.subscribe(ArchiveStateOutput.self) { _ in
                let count = delivered.withLockedValue { count -> Int in
                    count += 1
                    return count
                }
                // The first event holds the notifier's actor for `hold`, timed here: the benchmark
                // tool blocks one of the cooperative pool's two threads for the whole benchmark
                // (`Benchmark.runAsync` waits on a semaphore), and this blocks the other, so no
                // task of this process runs until it returns.
                guard count == 1 else { return }
                sampler.phase(.held)
                usleep(UInt32(hold.components.seconds * 1_000_000 + hold.components.attoseconds / 1_000_000_000_000))
                sampler.phase(.released)
            }
            try await sender.awaitSubscription()
            sampler.start()
            sender.go(frames)
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(240)
            while delivered.withLockedValue({ $0 }) < frames, clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            sampler.phase(.delivered)
            // A second more: the consumer drains its stream, and what was held is freed.
            try await Task.sleep(for: .seconds(1))
            let samples = sampler.stop()
            counting.cancel()
            // Undrained (`consumerStream` false), the stream must still live until here.
            withExtendedLifetime(archives) {}
            return Result(samples: samples, offered: frames, delivered: delivered.withLockedValue { $0 })
        }
    }
}

extension Flood.Result {
    init(samples: [FloodSampler.Sample], offered: Int, delivered: Int) {
        let base = samples.first ?? FloodSampler.Sample()
        let held = samples.filter { $0.phase == .held }
        self.offered = offered
        self.delivered = delivered
        heldHeapGrowth = (held.map(\.heap).max() ?? base.heap) - base.heap
        heldResidentGrowth = (held.map(\.resident).max() ?? base.resident) - base.resident
        heapGrowth = (samples.map(\.heap).max() ?? base.heap) - base.heap
        residentGrowth = (samples.map(\.resident).max() ?? base.resident) - base.resident
        finalHeapGrowth = (samples.last?.heap ?? base.heap) - base.heap
        backlog = samples.map { $0.delivered - $0.drained }.max() ?? 0
        longestGapMilliseconds = zip(samples, samples.dropFirst()).map { Int(($1.nanoseconds - $0.nanoseconds) / 1_000_000) }.max() ?? 0
        curve = "ms,phase,heap,resident,delivered,drained\n" + samples.map {
            "\(($0.nanoseconds - base.nanoseconds) / 1_000_000),\($0.phase),\($0.heap - base.heap),\($0.resident - base.resident),\($0.delivered),\($0.drained)"
        }.joined(separator: "\n") + "\n"
    }
}

/// Samples the heap, the resident set and the flood's counters every 10 ms on a thread of its
/// own, into storage allocated before it starts (so sampling adds nothing to what it measures).
final class FloodSampler: @unchecked Sendable {
    enum Phase: Int, CustomStringConvertible {
        case sending, held, released, delivered
        var description: String { ["sending", "held", "released", "delivered"][rawValue] }
    }

    struct Sample {
        var nanoseconds: Int64 = 0
        var phase = Phase.sending
        var heap = 0
        var resident = 0
        var delivered = 0
        var drained = 0
    }

    private let capacity = 60_000
    private let storage: UnsafeMutablePointer<Sample>
    private let lock = NIOLock()
    private var count = 0
    private var current = Phase.sending
    private var running = true
    private let done = DispatchSemaphore(value: 0)
    private let delivered: NIOLockedValueBox<Int>
    private let drained: NIOLockedValueBox<Int>

    init(delivered: NIOLockedValueBox<Int>, drained: NIOLockedValueBox<Int>) {
        self.delivered = delivered
        self.drained = drained
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    func start() {
        sample()
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                usleep(10_000)
                sample()
            }
            done.signal()
        }
        thread.start()
    }

    func phase(_ phase: Phase) {
        lock.withLock { current = phase }
        sample()
    }

    /// Stops sampling; the samples taken.
    func stop() -> [Sample] {
        lock.withLock { running = false }
        done.wait()
        sample()
        return lock.withLock { Array(UnsafeBufferPointer(start: storage, count: count)) }
    }

    private func sample() {
        var sample = Sample(
            nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds), heap: Memory.heapInUse(), resident: Self.resident(),
            delivered: delivered.withLockedValue { $0 }, drained: drained.withLockedValue { $0 })
        lock.withLock {
            guard count < capacity else { return }
            sample.phase = current
            storage[count] = sample
            count += 1
        }
    }

    /// The process's resident set in bytes, read without allocating.
    static func resident() -> Int {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer -> Int in
            let length = read(descriptor, buffer.baseAddress, buffer.count)
            guard length > 0 else { return 0 }
            // The second field: resident pages.
            var field = 0
            var value = 0
            for byte in buffer[..<length] {
                if byte == UInt8(ascii: " ") {
                    field += 1
                    if field > 1 { break }
                } else if field == 1, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
            }
            return value * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
    }
}
