import SwitchboardTesting
import Testing

@Suite("ManualClock")
struct ManualClockTests {
    @Test("advance wakes only the sleepers whose deadline is reached")
    func wakesOnlyDueSleepers() async throws {
        let clock = ManualClock()
        try await withThrowingTaskGroup(of: Duration.self) { group in
            for seconds in [3, 1, 2] {
                group.addTask {
                    try await clock.sleep(until: .init(offset: .seconds(seconds)), tolerance: nil)
                    return .seconds(seconds)
                }
            }
            await clock.sleepers(atLeast: 3)
            #expect(clock.nextDeadline == .init(offset: .seconds(1)))

            clock.advance(by: .milliseconds(999))
            #expect(clock.sleeperCount == 3)
            clock.advance(to: .init(offset: .seconds(1)))
            #expect(clock.sleeperCount == 2)
            let first = try await group.next()
            #expect(first == .seconds(1))
            #expect(clock.nextDeadline == .init(offset: .seconds(2)))

            clock.advance(by: .seconds(1))
            let second = try await group.next()
            #expect(second == .seconds(2))
            clock.advance(by: .seconds(5))
            let third = try await group.next()
            #expect(third == .seconds(3))
            #expect(clock.now == .init(offset: .seconds(7)))
            #expect(clock.sleeperCount == 0)
            #expect(clock.nextDeadline == nil)
        }
    }

    @Test("one advance past several deadlines resumes them in deadline order")
    func resumesInDeadlineOrder() async throws {
        let clock = ManualClock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seconds in [3, 1, 3, 2, 20] {
                group.addTask { try await clock.sleep(until: .init(offset: .seconds(seconds)), tolerance: nil) }
            }
            await clock.sleepers(atLeast: 5)
            let woken = clock.advance(by: .seconds(10))
            #expect(woken == [1, 2, 3, 3].map { ManualClock.Instant(offset: .seconds($0)) })
            #expect(clock.sleeperCount == 1)
            #expect(clock.advance(by: .seconds(9)).isEmpty)
            #expect(clock.advance(to: .init(offset: .seconds(20))) == [.init(offset: .seconds(20))])
            try await group.waitForAll()
        }
    }

    @Test("a deadline already reached returns at once without parking", arguments: [-5, 0])
    func pastDeadlineReturnsImmediately(offset: Int) async throws {
        let clock = ManualClock(now: .init(offset: .seconds(10)))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(offset)), tolerance: nil)
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .init(offset: .seconds(10)))
    }

    @Test("cancelling a parked sleeper throws CancellationError and removes it")
    func cancellationWhileParked() async {
        let clock = ManualClock()
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await clock.sleep(for: .seconds(60)) }
            await clock.sleepers(atLeast: 1)
            group.cancelAll()
            await #expect(throws: CancellationError.self) { try await group.next() }
        }
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == .zero)
    }

    @Test("a sleep in an already-cancelled task throws without parking")
    func cancellationBeforeSleeping() async throws {
        let clock = ManualClock()
        await withTaskGroup(of: Void.self) { group in
            group.cancelAll()
            group.addTask {
                await #expect(throws: CancellationError.self) { try await clock.sleep(for: .seconds(1)) }
            }
        }
        #expect(clock.sleeperCount == 0)
    }

    @Test("cancelling one sleeper leaves the others parked")
    func cancellationIsPerSleeper() async throws {
        let clock = ManualClock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await clock.sleep(for: .seconds(5)) }
            await clock.sleepers(atLeast: 1)
            await #expect(throws: CancellationError.self) {
                try await withThrowingTaskGroup(of: Void.self) { doomed in
                    doomed.addTask { try await clock.sleep(for: .seconds(5)) }
                    await clock.sleepers(atLeast: 2)
                    doomed.cancelAll()
                    try await doomed.waitForAll()
                }
            }
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .seconds(5))
            try await group.waitForAll()
        }
        #expect(clock.sleeperCount == 0)
    }

    @Test("sleepers(atLeast:) returns once enough sleepers are parked", arguments: [1, 2, 4])
    func sleepersAtLeast(count: Int) async throws {
        let clock = ManualClock()
        await clock.sleepers(atLeast: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { try await clock.sleep(for: .seconds(index + 1)) }
            }
            await clock.sleepers(atLeast: count)
            #expect(clock.sleeperCount == count)
            clock.advance(by: .seconds(count))
            try await group.waitForAll()
        }
        #expect(clock.sleeperCount == 0)
    }

    @Test("a cancelled sleepers(atLeast:) wait returns instead of hanging")
    func sleepersWaitCancellation() async {
        let clock = ManualClock()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await clock.sleepers(atLeast: 1) }
            group.cancelAll()
            await group.waitForAll()
        }
        #expect(clock.sleeperCount == 0)
    }

    @Test("time never goes backwards")
    func advanceNeverRewinds() {
        let clock = ManualClock(now: .init(offset: .seconds(5)))
        clock.advance(to: .init(offset: .seconds(2)))
        clock.advance(by: .seconds(-1))
        #expect(clock.now == .init(offset: .seconds(5)))
        #expect(clock.minimumResolution == .zero)
    }

    @Test("works as any Clock<Duration>")
    func usableAsExistential() async throws {
        let manual = ManualClock()
        let clock: any Clock<Duration> = manual
        async let slept: Void = clock.sleep(for: .seconds(2))
        await manual.sleepers(atLeast: 1)
        manual.advance(by: .seconds(2))
        try await slept
        #expect(manual.now.offset == .seconds(2))
    }

    @Test("the seeded generator is deterministic per seed")
    func seededGenerator() {
        var first = SeededRandomNumberGenerator(seed: 42)
        var second = SeededRandomNumberGenerator(seed: 42)
        var other = SeededRandomNumberGenerator(seed: 43)
        let a = (0..<8).map { _ in first.next() }
        #expect(a == (0..<8).map { _ in second.next() })
        #expect(a != (0..<8).map { _ in other.next() })
        #expect(Set(a).count == 8)
        var zero = SeededRandomNumberGenerator(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
    }
}
