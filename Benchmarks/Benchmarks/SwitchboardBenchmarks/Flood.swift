import Benchmark
import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Switchboard
import SwitchboardCore
import MallocInterposerSwift

enum FloodMetric {
    static let offered = BenchmarkMetric.custom("frames offered", polarity: .prefersLarger, useScalingFactor: false)
    static let delivered = BenchmarkMetric.custom("events delivered", polarity: .prefersLarger, useScalingFactor: false)
    static let heldHeapGrowth = BenchmarkMetric.custom("peak heap growth while held KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let heapGrowth = BenchmarkMetric.custom("peak heap growth KiB", polarity: .prefersSmaller, useScalingFactor: false)
    static let residentGrowth = BenchmarkMetric.custom("peak resident growth KiB", polarity: .prefersSmaller, useScalingFactor: false)
}

/// Issue 30's flood: the blast sender offers 1,000,000 archive frames to a notifier whose actor
/// is held busy (its first event's handler waits) for three seconds; then it is let go. With read
/// back-pressure the socket stops reading at the connection's budget, TCP holds the rest back in
/// the sender, and every frame is delivered once reading resumes. Heap = bytes requested from
/// malloc and not freed (the benchmark tool's interposer), resident = the process's RSS
/// (`/proc/self/statm`), both sampled every 10 ms from before the blast to the last delivery;
/// the sender is in the same process, so its own buffers are inside both figures.
func registerFlood() {
    for kind in [TransportKind.appsync, .graphql] {
        Benchmark(
            "Flood \(kind) (notifier held busy)",
            configuration: .init(
                metrics: [FloodMetric.offered, FloodMetric.delivered, FloodMetric.heldHeapGrowth, FloodMetric.heapGrowth,
                          FloodMetric.residentGrowth],
                warmupIterations: 0, maxDuration: .seconds(300), maxIterations: 1)
        ) { benchmark in
            let result = try await Flood.run(kind, frames: 1_000_000, hold: .seconds(3))
            Report.record(benchmark, FloodMetric.offered, result.offered)
            Report.record(benchmark, FloodMetric.delivered, result.delivered)
            Report.record(benchmark, FloodMetric.heldHeapGrowth, result.heldHeapGrowth / 1024)
            Report.record(benchmark, FloodMetric.heapGrowth, result.heapGrowth / 1024)
            Report.record(benchmark, FloodMetric.residentGrowth, result.residentGrowth / 1024)
        }
    }
}

enum Flood {
    struct Result {
        var offered: Int
        var delivered: Int
        var heldHeapGrowth: Int
        var heapGrowth: Int
        var residentGrowth: Int
    }

    /// The process's resident set in bytes.
    static func resident() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func run(_ kind: TransportKind, frames: Int, hold: Duration) async throws -> Result {
        try await BlastServer.with { server in
            let notifier = Rig.notifier(kind, port: server.port)
            return try await Rig.running(notifier) {
                // The stream subscribes the archive channel; a task drains it, and the events are
                // counted by the handler below (the stream's buffer may drop under the burst).
                let archives = await notifier.archiveValues()
                let drain = Task { for await _ in archives {} }
                defer { drain.cancel() }
                let release = DispatchSemaphore(value: 0)
                let delivered = NIOLockedValueBox(0)
                let counting = notifier.broker.subscribe(ArchiveStateOutput.self) { _ in
                    let count = delivered.withLockedValue { count -> Int in
                        count += 1
                        return count
                    }
                    // The first event holds the notifier's actor until the hold is over.
                    if count == 1 { _ = release.wait(timeout: .now() + .seconds(60)) }
                }
                let subscription = try await server.waitForSubscription { $0.request.contains(ArchivePayload.marker(kind)) }
                MallocInterposerSwift.hook()
                defer { MallocInterposerSwift.unhook() }
                let heapBefore = Memory.heapInUse()
                let residentBefore = resident()
                var peakHeap = heapBefore
                var peakResident = residentBefore
                func sample() {
                    peakHeap = max(peakHeap, Memory.heapInUse())
                    peakResident = max(peakResident, resident())
                }
                let sender = Task.detached { server.blast(frames, to: subscription) { ArchivePayload.frame(kind, id: $0) } }
                let clock = ContinuousClock()
                let heldUntil = clock.now + hold
                while clock.now < heldUntil {
                    sample()
                    try await Task.sleep(for: .milliseconds(10))
                }
                let heldHeapGrowth = peakHeap - heapBefore
                release.signal()
                let deadline = clock.now + .seconds(240)
                while delivered.withLockedValue({ $0 }) < frames, clock.now < deadline {
                    sample()
                    try await Task.sleep(for: .milliseconds(10))
                }
                sample()
                await sender.value
                counting.cancel()
                return Result(
                    offered: frames, delivered: delivered.withLockedValue { $0 }, heldHeapGrowth: heldHeapGrowth,
                    heapGrowth: peakHeap - heapBefore, residentGrowth: peakResident - residentBefore)
            }
        }
    }
}
