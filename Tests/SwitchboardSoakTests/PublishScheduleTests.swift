import Testing

@testable import SwitchboardSoak

@Suite("Soak publish schedule")
struct PublishScheduleTests {
    @Test func ticksHandOutWhatFellDueInOrderUntilEveryEventIsOut() {
        var schedule = PublishSchedule(rate: 500, duration: .seconds(60))
        #expect(schedule.total == 30_000)
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

    @Test func aTickAfterAStallCatchesUpAtTwiceTheRateNotInAHeap() {
        var schedule = PublishSchedule(rate: 500, duration: .seconds(10))
        #expect(schedule.due(at: .milliseconds(20)) == 0..<10)
        // A second and a half without a tick: 740 events are due; twice the rate over the 50 ms
        // window is 50, the oldest 1.48 s late.
        #expect(schedule.due(at: .milliseconds(1_500)) == 10..<60)
        #expect(schedule.largestLag == .milliseconds(1_480))
        // Ticks 20 ms apart then catch up at twice the rate (20 a tick while 10 fall due).
        #expect(schedule.due(at: .milliseconds(1_520)) == 60..<80)
        var elapsed = Duration.milliseconds(1_520)
        var largest = 0
        while !schedule.isDone {
            elapsed += .milliseconds(20)
            largest = max(largest, schedule.due(at: elapsed).count)
        }
        #expect(largest == 20)
        #expect(schedule.sent == 5_000)
        #expect(elapsed == .seconds(10), "caught up by the end")
    }

    @Test func lateTicksKeepTheRateAndSlowSendsCarryMore() {
        // Every tick three times late (60 ms for 20): twice the rate over 50 ms is 50, 30 fall due.
        var late = PublishSchedule(rate: 500, duration: .seconds(1))
        var elapsed = Duration.zero
        while !late.isDone {
            elapsed += .milliseconds(60)
            #expect(late.due(at: elapsed).count <= 50)
        }
        #expect(elapsed == .milliseconds(1_020), "kept the rate")
        // Sends that take a second each: the window widens to the send, so the rate holds.
        var slow = PublishSchedule(rate: 500, duration: .seconds(10))
        #expect(slow.due(at: .milliseconds(1_000), lastSend: .zero).count == 50)
        #expect(slow.due(at: .milliseconds(2_000), lastSend: .seconds(1)).count == 950)
        #expect(slow.due(at: .milliseconds(3_000), lastSend: .seconds(1)).count == 500)
    }

    @Test func oddRatesAndDurationsRound() {
        #expect(PublishSchedule(rate: 7, duration: .milliseconds(1_500)).total == 11)
        #expect(PublishSchedule(rate: 0, duration: .seconds(3)).total == 3)
    }
}
