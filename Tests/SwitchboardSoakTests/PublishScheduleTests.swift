import Testing

@testable import SwitchboardSoak

@Suite("Soak publish schedule")
struct PublishScheduleTests {
    @Test func ticksHandOutWhatFellDueInOrderAndTheEndTheRest() {
        var schedule = PublishSchedule(rate: 500, duration: .seconds(60))
        #expect(schedule.total == 30_000)
        #expect(schedule.due(at: .zero).isEmpty)
        #expect(schedule.due(at: .milliseconds(50)) == 0..<25)
        #expect(schedule.due(at: .milliseconds(50)).isEmpty)
        #expect(schedule.due(at: .milliseconds(100)) == 25..<50)
        // The last tick came before the end; the remainder is everything left, due or not.
        #expect(schedule.due(at: .milliseconds(59_990)) == 50..<29_995)
        #expect(schedule.remainder(at: .milliseconds(59_995)) == 29_995..<30_000)
        #expect(schedule.sent == 30_000)
        #expect(schedule.remainder(at: .seconds(61)).isEmpty)
        #expect(schedule.due(at: .seconds(90)).isEmpty)
    }

    @Test func aLateTickSendsMoreAndTheLagIsTheOldestEventsWait() {
        var schedule = PublishSchedule(rate: 500, duration: .seconds(10))
        _ = schedule.due(at: .milliseconds(100))  // 0..<50, event 0 due at 0: 0.1 s behind
        #expect(schedule.largestLag == .milliseconds(100))
        // Three seconds without a tick: the next one sends 1.5 s worth, its oldest 1.4 s late.
        #expect(schedule.due(at: .milliseconds(1_500)) == 50..<750)
        #expect(schedule.largestLag == .milliseconds(1_400))
        #expect(schedule.due(at: .milliseconds(1_600)) == 750..<800)
        #expect(schedule.largestLag == .milliseconds(1_400))
        // A publisher that only catches up at the end shows it in the lag, not in the count.
        #expect(schedule.remainder(at: .seconds(13)) == 800..<5_000)
        #expect(schedule.largestLag == .milliseconds(11_400))
    }

    @Test func oddRatesAndDurationsRound() {
        #expect(PublishSchedule(rate: 7, duration: .milliseconds(1_500)).total == 11)
        #expect(PublishSchedule(rate: 0, duration: .seconds(3)).total == 3)
    }
}
