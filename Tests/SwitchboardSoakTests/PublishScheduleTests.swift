import Testing

@testable import SwitchboardSoak

@Suite("Soak publish schedule")
struct PublishScheduleTests {
    @Test func ticksHandOutWhatFellDueInOrderUntilEveryEventIsOut() {
        var schedule = PublishSchedule(rate: 500, duration: .seconds(60), tick: .milliseconds(50))
        #expect(schedule.total == 30_000)
        #expect(schedule.burst == 50)
        #expect(schedule.due(at: .zero).isEmpty)
        #expect(schedule.due(at: .milliseconds(50)) == 0..<25)
        #expect(schedule.due(at: .milliseconds(50)).isEmpty)
        #expect(schedule.due(at: .milliseconds(100)) == 25..<50)
        // Ticks on time to the end: nothing is left over.
        var elapsed = Duration.milliseconds(100)
        while !schedule.isDone {
            elapsed += .milliseconds(50)
            _ = schedule.due(at: elapsed)
        }
        #expect(schedule.sent == 30_000)
        #expect(elapsed == .seconds(60))
        #expect(schedule.largestLag == .milliseconds(50))
        #expect(schedule.due(at: .seconds(90)).isEmpty)
    }

    @Test func aLateTickCatchesUpAtMostTwiceATicksWorthAndTheLagShowsIt() {
        var schedule = PublishSchedule(rate: 500, duration: .seconds(10), tick: .milliseconds(20))
        #expect(schedule.burst == 20)
        #expect(schedule.due(at: .milliseconds(20)) == 0..<10)
        // A second and a half without a tick: 740 events are due, 20 go, the oldest 1.48 s late.
        #expect(schedule.due(at: .milliseconds(1_500)) == 10..<30)
        #expect(schedule.largestLag == .milliseconds(1_480))
        #expect(schedule.due(at: .milliseconds(1_520)) == 30..<50)
        // Past the end, ticks go on until every event is out, never more than a burst each.
        var elapsed = Duration.milliseconds(1_520)
        var largest = 0
        while !schedule.isDone {
            elapsed += .milliseconds(20)
            largest = max(largest, schedule.due(at: elapsed).count)
        }
        #expect(largest == 20)
        #expect(schedule.sent == 5_000)
        #expect(elapsed == .seconds(10), "caught up gently, by the end")
        // One that cannot catch up finishes later instead of heaping the rest at the end.
        var slow = PublishSchedule(rate: 500, duration: .seconds(1), tick: .milliseconds(20))
        var late = Duration.zero
        while !slow.isDone {
            late += .milliseconds(60)  // every tick three times late: 20 a tick, 30 due
            #expect(slow.due(at: late).count <= 20)
        }
        #expect(late > .seconds(1))
    }

    @Test func oddRatesAndDurationsRound() {
        #expect(PublishSchedule(rate: 7, duration: .milliseconds(1_500), tick: .milliseconds(20)).total == 11)
        #expect(PublishSchedule(rate: 0, duration: .seconds(3), tick: .milliseconds(20)).total == 3)
        #expect(PublishSchedule(rate: 7, duration: .seconds(1), tick: .milliseconds(20)).burst == 1)
    }
}
