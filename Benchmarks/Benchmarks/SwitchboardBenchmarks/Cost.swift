import Foundation
import MallocInterposerSwift

/// What one reader of the throughput benchmarks cost: its rate, and per delivered event the
/// process's CPU time and heap allocations.
///
/// Both costs are the whole process's over the reader's window (from the first send to the last
/// event in hand). With the blast sender, which runs in a child process, that is the client's
/// alone; with the emulator as the sender (in this process) it includes the emulator's share.
/// The bare read loop's figures are the floor: what reading the socket costs.
struct Cost: Sendable {
    /// Events (or frames) per second.
    var rate: Double
    /// User plus system CPU time of every thread, per event.
    var cpuPerEvent: Duration
    /// Calls to `malloc` and its relatives (the benchmark tool's interposer) per event.
    var allocationsPerEvent: Double

    var cpuNanosecondsPerEvent: Int { Int((cpuPerEvent.seconds * 1e9).rounded()) }
}

/// Starts the clocks and the benchmark tool's malloc counter for one reader's window.
struct CostMeter {
    private let clock = ContinuousClock()
    private let began: ContinuousClock.Instant
    private let cpuBefore: Duration
    private let allocationsBefore: Int

    /// Call just before the sender starts.
    init() {
        MallocInterposerSwift.hook()
        allocationsBefore = Self.allocations()
        cpuBefore = Self.processCPUTime()
        began = clock.now
    }

    /// Call once the last of `events` is in hand; stops counting allocations.
    func stop(events: Int) -> Cost {
        let elapsed = began.duration(to: clock.now)
        let cpu = Self.processCPUTime() - cpuBefore
        let allocations = Self.allocations() - allocationsBefore
        MallocInterposerSwift.unhook()
        return Cost(
            rate: Double(events) / elapsed.seconds, cpuPerEvent: cpu / events,
            allocationsPerEvent: Double(allocations) / Double(events))
    }

    private static func allocations() -> Int { MallocInterposerSwift.getStatistics().mallocCount }

    /// User plus system CPU time of the whole process so far.
    static func processCPUTime() -> Duration {
        var usage = rusage()
        // RUSAGE_SELF is 0 everywhere, but Glibc imports it as an enum and Darwin as an Int32.
        getrusage(0, &usage)
        func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }
}
