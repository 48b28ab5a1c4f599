import SwitchboardCore
import SwitchboardEmulator
@testable import SwitchboardSync
import SwitchboardTesting
import Testing

@Suite("Sync progress", .timeLimit(.minutes(1)))
struct ProgressTests {
    @Test func throttlePassesOnePerIntervalAndAlwaysTheFinal() {
        var throttle = ProgressThrottle(interval: .milliseconds(100))
        var passed: [Int] = []
        for step in 0...25 {
            let progress = SyncProgress(processed: step, total: 25, isFinal: step == 25)
            if let update = throttle.offer(progress, at: .milliseconds(step * 30)) { passed.append(update.processed) }
        }
        // 0 ms, then the first offer at least 100 ms after the previous one passed: 120, 240, …
        #expect(passed == [0, 4, 8, 12, 16, 20, 24, 25])
    }

    @Test func throttleNeverRepeatsAValue() {
        var throttle = ProgressThrottle(interval: .milliseconds(100))
        #expect(throttle.offer(SyncProgress(processed: 1, total: 2), at: .zero) != nil)
        #expect(throttle.offer(SyncProgress(processed: 1, total: 2), at: .seconds(5)) == nil)
    }

    @Test func clientUpdatesAtMostTenTimesASecondOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let reports = LockedValue<[(at: Duration, progress: SyncProgress)]>([])
        try await withRunningEmulator(configuration: emulatorConfiguration(batchSize: 100)) { emulator, endpoints in
            try publish(2_000, on: emulator)
            // Every delivered batch "takes" 30 ms of the manual clock, so 20 batches span 600 ms.
            _ = try await syncClient(endpoints, clock: clock).catchUp(
                store: InMemoryCheckpointStore(),
                progress: { progress in reports.withLock { $0.append((clock.now.offset, progress)) } },
                deliver: { _ in clock.advance(by: .milliseconds(30)) })
        }
        let all = reports.withLock { $0 }
        let regular = all.filter { !$0.progress.isFinal }
        #expect(zip(regular, regular.dropFirst()).allSatisfy { $1.at - $0.at >= .milliseconds(100) })
        #expect(regular.count <= 7, "600 ms allow at most 7 (0, 120, 240, … 600)")
        #expect(all.map(\.progress).isMonotone)
        #expect(all.last?.progress == SyncProgress(processed: 2_000, total: 2_000, isFinal: true))
        #expect(all.filter(\.progress.isFinal).count == 1)
    }

    @Test func withoutTimePassingOnlyTheFirstAndFinalUpdatesArrive() async throws {
        let clock = ManualClock()
        let (updates, report) = SyncProgressUpdates.makeStream()
        try await withRunningEmulator(configuration: emulatorConfiguration(batchSize: 100)) { emulator, endpoints in
            try publish(1_000, on: emulator)
            _ = try await syncClient(endpoints, clock: clock).catchUp(store: InMemoryCheckpointStore(), progress: report) { _ in }
        }
        var received: [SyncProgress] = []
        for await update in updates { received.append(update) }
        #expect(received == [SyncProgress(processed: 0, total: nil), SyncProgress(processed: 1_000, total: 1_000, isFinal: true)])
    }
}
