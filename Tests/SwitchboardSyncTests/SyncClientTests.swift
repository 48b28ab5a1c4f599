import Foundation
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardSync
import Testing

@Suite("Sync client against the emulator", .timeLimit(.minutes(1)))
struct SyncClientTests {
    @Test func streamsTenThousandEventsWithMonotoneProgress() async throws {
        let collected = Collected()
        let (published, summary) = try await withRunningEmulator(configuration: emulatorConfiguration()) { emulator, endpoints in
            let published = try publish(10_000, on: emulator)
            let summary = try await syncClient(endpoints).catchUp(
                store: InMemoryCheckpointStore(), progress: collected.report, deliver: collected.deliver)
            return (published, summary)
        }
        #expect(summary.completedOverStream)
        #expect(summary.pullRequests == 0)
        #expect(summary.deliveredEvents == 10_000)
        #expect(collected.ids == published)
        let progress = collected.progress
        #expect(progress.isMonotone)
        #expect(progress.last == SyncProgress(processed: 10_000, total: 10_000, isFinal: true))
        #expect(progress.dropLast().allSatisfy { !$0.isFinal })
    }

    @Test func fallsBackToRESTWhenTheStreamEndpointIsMissing() async throws {
        let collected = Collected()
        let (published, summary) = try await withRunningEmulator(configuration: emulatorConfiguration()) { emulator, endpoints in
            let published = try publish(450, on: emulator)
            emulator.setSyncStreamFault(.disabled)
            let summary = try await syncClient(endpoints).catchUp(
                store: InMemoryCheckpointStore(), progress: collected.report, deliver: collected.deliver)
            return (published, summary)
        }
        let failure = try #require(summary.streamFailure)
        #expect(failure.code == .network)
        #expect(failure.message.contains("404"))
        #expect(summary.pullRequests == 5)
        #expect(collected.batches.map(\.count) == [100, 100, 100, 100, 50])
        #expect(collected.ids == published)
        #expect(collected.progress.last == SyncProgress(processed: 450, total: 450, isFinal: true))
    }

    @Test(arguments: [1, 250, 777, 1_000])
    func resumesOverRESTWhenTheStreamDrops(afterEvents dropAfter: Int) async throws {
        let collected = Collected()
        let store = InMemoryCheckpointStore()
        let (published, summary) = try await withRunningEmulator(configuration: emulatorConfiguration(batchSize: 100)) {
            emulator, endpoints in
            let published = try publish(1_000, on: emulator)
            emulator.setSyncStreamFault(.drop(afterEvents: dropAfter))
            let summary = try await syncClient(endpoints).catchUp(
                store: store, progress: collected.report, deliver: collected.deliver)
            return (published, summary)
        }
        #expect(summary.streamFailure?.code == .network)
        #expect(collected.ids == published, "every event once, in order")
        #expect(collected.progress.isMonotone)
        #expect(collected.progress.last == SyncProgress(processed: 1_000, total: 1_000, isFinal: true))
        #expect(store.load() == summary.checkpoint)
    }

    @Test func fallsBackToRESTWhenTheStreamRefuses() async throws {
        let collected = Collected()
        let (published, summary) = try await withRunningEmulator(configuration: emulatorConfiguration()) { emulator, endpoints in
            let published = try publish(120, on: emulator)
            emulator.setSyncStreamFault(.refuse())
            let summary = try await syncClient(endpoints).catchUp(
                store: InMemoryCheckpointStore(), progress: collected.report, deliver: collected.deliver)
            return (published, summary)
        }
        #expect(summary.streamFailure?.code == .syncRejected)
        #expect(collected.ids == published)
    }

    @Test func aSecondCatchUpDeliversOnlyWhatIsNew() async throws {
        let collected = Collected()
        let store = InMemoryCheckpointStore()
        let (later, first, second) = try await withRunningEmulator(configuration: emulatorConfiguration()) {
            emulator, endpoints in
            let client = syncClient(endpoints)
            try publish(30, on: emulator)
            let first = try await client.catchUp(store: store) { _ in }
            let later = try publish(12, from: 31, on: emulator)
            emulator.setSyncStreamFault(.disabled)
            let second = try await client.catchUp(store: store, deliver: collected.deliver)
            return (later, first, second)
        }
        #expect(first.deliveredEvents == 30)
        #expect(second.deliveredEvents == 12)
        #expect(collected.ids == later)
    }

    @Test func aTimestampStartsAfterThatTimeAndIsReplacedByACheckpoint() async throws {
        let collected = Collected()
        let store = InMemoryCheckpointStore()
        let later = try await withRunningEmulator(configuration: emulatorConfiguration()) { emulator, endpoints in
            try publish(5, on: emulator)
            let cut = try #require(emulator.loggedEvents.last?.publishedAt)
            while Date() <= cut { try await Task.sleep(for: .milliseconds(2)) }
            let later = try publish(3, from: 6, on: emulator)
            _ = try await syncClient(endpoints).catchUp(
                since: SyncCheckpoint(publishedAfter: cut), store: store, deliver: collected.deliver)
            return later
        }
        #expect(collected.ids == later)
        #expect(store.load()?.rawValue.hasPrefix("v1.") == true)
    }

    @Test func anExpiredCheckpointIsATypedError() async throws {
        let error = try await withRunningEmulator(configuration: emulatorConfiguration(logCapacity: 10)) { emulator, endpoints in
            try publish(3, on: emulator)
            let store = InMemoryCheckpointStore()
            _ = try await syncClient(endpoints).catchUp(store: store) { _ in }
            try publish(20, on: emulator)
            return await #expect(throws: SwitchboardError.self) {
                try await syncClient(endpoints).catchUp(store: store) { _ in }
            }
        }
        #expect(error?.code == .checkpointExpired)
    }

    @Test func aFailingDeliveryStopsTheCatchUpWithoutAdvancingTheCheckpoint() async throws {
        struct Refused: Error {}
        let store = InMemoryCheckpointStore()
        let calls = LockedValue(0)
        let (summary, checkpointAfterFirstBatch) = try await withRunningEmulator(configuration: emulatorConfiguration(batchSize: 100)) {
            emulator, endpoints in
            try publish(300, on: emulator)
            let client = syncClient(endpoints)
            await #expect(throws: Refused.self) {
                try await client.catchUp(store: store) { _ in
                    let call = calls.withLock { $0 += 1; return $0 }
                    if call == 2 { throw Refused() }
                }
            }
            let checkpoint = store.load()
            let collected = Collected()
            let summary = try await client.catchUp(store: store, deliver: collected.deliver)
            return (summary, checkpoint)
        }
        #expect(checkpointAfterFirstBatch != nil)
        #expect(summary.deliveredEvents == 200)
    }
}
