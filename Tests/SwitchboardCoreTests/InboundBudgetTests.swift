import Foundation
@testable import SwitchboardCore
import Testing

@Suite("Inbound budget")
struct InboundBudgetTests {
    @Test("reading stops at the limit and resumes at half of it, waking the reader once")
    func stopsAndResumes() {
        let budget = InboundBudget(limit: 1_000)
        let woken = LockedValue(0)
        let first = budget.charge(600)
        #expect(budget.mayRead { woken.withLock { $0 += 1 } })
        let second = budget.charge(500)
        #expect(!budget.mayRead { woken.withLock { $0 += 1 } })
        first.release()
        #expect(woken.withLock { $0 } == 1, "500 left: at half the limit, the reader is woken")
        second.release()
        #expect(woken.withLock { $0 } == 1, "woken once")
        #expect(budget.outstanding == 0)
        #expect(budget.peakOutstanding == 1_100)
    }

    @Test("a release above half the limit does not wake the reader")
    func noEarlyWake() {
        let budget = InboundBudget(limit: 1_000)
        let woken = LockedValue(false)
        _ = budget.charge(900)
        let small = budget.charge(200)
        #expect(!budget.mayRead { woken.withLock { $0 = true } })
        small.release()
        #expect(!woken.withLock { $0 })
        #expect(budget.mayRead {}, "under the limit, a read asked for now may go ahead")
    }

    @Test("bytes set aside do not count until taken back")
    func setAside() {
        let budget = InboundBudget(limit: 100)
        let fragment = budget.charge(500)
        budget.setAside(500)
        #expect(budget.mayRead {})
        budget.takeBack(500)
        #expect(!budget.mayRead {})
        fragment.release()
        #expect(budget.mayRead {})
    }

    @Test("charges add up and an empty one releases nothing")
    func charges() {
        let budget = InboundBudget(limit: 100)
        let total = budget.charge(30).adding(budget.charge(20))
        #expect(budget.outstanding == 50)
        InboundCharge.none.release()
        #expect(budget.outstanding == 50)
        total.release()
        #expect(budget.outstanding == 0)
    }
}
