import Foundation
import SwitchboardCore
import SwitchboardSync
import Testing

@testable import Switchboard

/// The catch-up machine without I/O: facts in, actions out, dates passed in.
@Suite("Catch-up machine")
struct CatchUpMachineTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let settings = CatchUpMachine.Settings(
        rememberedDeliveries: 3, subscriptionSettleTime: .milliseconds(500), retries: 2, retryDelay: .seconds(1))
    let ready = CatchUpMachine.Readiness(connected: true, settled: true, acknowledgesSubscriptions: true)

    /// The backend's time `milliseconds` after the start.
    func at(_ milliseconds: Int) -> Date { start.addingTimeInterval(Double(milliseconds) / 1000) }
    /// The moment of the notifier's timeline `milliseconds` after the start.
    func moment(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }
    /// The backend's clock read at moment zero as ``start``: what a sync answer taught.
    var backendTime: BackendTimeEstimate {
        var estimate = BackendTimeEstimate(deviceTime: start, at: .zero)
        estimate.record(serverTime: start, sent: .zero, received: .zero)
        return estimate
    }

    func envelope(_ text: String) -> EventEnvelope {
        EventEnvelope(subscription: "k", payload: Data(#"{"eventType":"organization/planChanged","orgId":"\#(text)"}"#.utf8),
                      receivedAt: start, transport: .appsync)
    }

    func mark(_ org: String, timestamp: Date?, bytes: Int = Fingerprints.entryOverhead) -> Fingerprint {
        Fingerprint(key: FingerprintKey(stream: StreamCatalog.plan, fields: AnyHashable(PlanStateOutput(orgId: org))),
                    timestamp: timestamp, bytes: bytes)
    }

    /// A machine connected once, its first catch-up ordered.
    func started(_ settings: CatchUpMachine.Settings? = nil) -> (CatchUpMachine, CatchUpMachine.Order) {
        var machine = CatchUpMachine(settings: settings ?? self.settings, startedAt: .zero, backendTime: backendTime)
        machine.connectionOpened(at: moment(10))
        let actions = machine.connected(after: nil, readiness: ready)
        guard case .fetch(let order)? = actions.first else {
            Issue.record("no fetch: \(actions)")
            return (machine, CatchUpMachine.Order(reason: .start, sessionStart: .zero, settle: nil))
        }
        return (machine, order)
    }

    @Test("the first connection orders a fetch from the start; live envelopes are held until it ends, then released in order")
    func firstCatchUp() {
        var (machine, order) = started()
        #expect(order == CatchUpMachine.Order(reason: .start, sessionStart: .zero, settle: nil))
        let heldA = machine.holdQuietly(envelope("a")), heldB = machine.holdQuietly(envelope("b"))
        #expect(heldA && heldB)
        let (delivered, skipped, actions) = machine.ended(succeeded: true, now: moment(20), readiness: ready)
        #expect(delivered == 0 && skipped == 0)
        #expect(actions == [.release([.init(envelope: envelope("a"), connection: 1), .init(envelope: envelope("b"), connection: 1)])])
        let held = machine.holdQuietly(envelope("c"))
        #expect(!held, "nothing runs: delivered at once")
        let again = machine.connected(after: nil, readiness: ready)
        #expect(again.isEmpty, "the start catch-up happens once")
    }

    @Test("a legacy envelope held during a catch-up and released after it is recognised as the copy of the fetched event, even after a reconnect")
    func releasedLegacyCopy() {
        var (machine, _) = started()
        // Connection 1 carries "a" live while the catch-up runs: it is held.
        let held = machine.holdQuietly(envelope("a"))
        #expect(held)
        // The connection drops and comes back before the catch-up ends.
        machine.connectionClosed(at: moment(100))
        machine.connectionOpened(at: moment(210))
        // The catch-up fetched "a" (logged while connection 1 was open) and delivered it.
        let fetched = machine.admit(
            mark("a", timestamp: at(50)), stream: StreamCatalog.plan, route: .caughtUp(loggedAt: at(50)), now: moment(220), readiness: ready)
        #expect(fetched.admitted)
        let ended = machine.ended(succeeded: true, now: moment(230), readiness: ready)
        #expect(ended.actions == [.release([.init(envelope: envelope("a"), connection: 1)])])
        // The held live copy, released on the connection it arrived on, is not delivered again.
        let copy = machine.admit(
            mark("a", timestamp: nil), stream: StreamCatalog.plan, route: .released(connection: 1), now: moment(231), readiness: ready)
        #expect(!copy.admitted, "the released legacy copy of a fetched event is delivered twice")
        machine.releaseDelivered(now: moment(232))
        // Afterwards, an equal value arriving live is a new event.
        let later = machine.admit(
            mark("a", timestamp: nil), stream: StreamCatalog.plan, route: .live, now: moment(240), readiness: ready)
        #expect(later.admitted)
    }

    @Test("waits for acknowledgements: no fetch until settled, a deadline of its own wait starts it anyway")
    func acknowledgements() {
        var machine = CatchUpMachine(settings: settings, startedAt: .zero, backendTime: backendTime)
        machine.connectionOpened(at: moment(0))
        var unsettled = ready
        unsettled.settled = false
        let actions = machine.connected(after: .reconnected, readiness: unsettled)
        #expect(actions == [.announceGap(.reconnected), .timeAcknowledgements(wait: 1)])
        #expect(machine.waiting == .gap(.reconnected))
        let changed = machine.readinessChanged(unsettled)
        #expect(changed.isEmpty)
        let otherWait = machine.acknowledgementDeadlinePassed(2, readiness: unsettled)
        #expect(otherWait.isEmpty, "another wait's deadline")
        let overdue = machine.acknowledgementDeadlinePassed(1, readiness: unsettled)
        #expect(overdue == [.acknowledgementsOverdue, .fetch(.init(reason: .gap(.reconnected), sessionStart: .zero, settle: nil))])
        let late = machine.acknowledgementDeadlinePassed(1, readiness: unsettled)
        #expect(late.isEmpty, "started already")
    }

    @Test("a transport without acknowledgements lets subscriptions settle; a catch-up for full memory does not wait")
    func settleTime() {
        var machine = CatchUpMachine(settings: settings, startedAt: .zero, backendTime: backendTime)
        machine.connectionOpened(at: moment(0))
        var legacy = ready
        legacy.acknowledgesSubscriptions = false
        let first = machine.connected(after: nil, readiness: legacy)
        // Started at once: no acknowledgements to time.
        #expect(first == [.fetch(.init(reason: .start, sessionStart: .zero, settle: .milliseconds(500)))])
        _ = machine.ended(succeeded: true, now: moment(1), readiness: legacy)
        for org in ["a", "b"] {
            let (admitted, actions) = machine.admit(
                mark(org, timestamp: nil), stream: StreamCatalog.plan, route: .live, now: moment(2), readiness: legacy)
            #expect(admitted && actions.isEmpty)
        }
        let (admitted, actions) = machine.admit(
            mark("c", timestamp: nil), stream: StreamCatalog.plan, route: .live, now: moment(2), readiness: legacy)
        #expect(admitted)
        #expect(actions.first == .fetch(.init(reason: .rememberedDeliveriesFull, sessionStart: .zero, settle: nil)))
    }

    @Test("acknowledged subscriptions without the log's time on live events (AppSync GraphQL) still settle; with it (AppSync Events) the fetch starts on the acknowledgements")
    func settleAfterAcknowledgementsWithoutLogTimes() {
        for carriesLogTimes in [false, true] {
            var machine = CatchUpMachine(settings: settings, startedAt: .zero, backendTime: backendTime)
            machine.connectionOpened(at: moment(0))
            var readiness = ready
            readiness.liveEventsCarryLogTimes = carriesLogTimes
            readiness.settled = false
            let first = machine.connected(after: nil, readiness: readiness)
            #expect(first == [.timeAcknowledgements(wait: 1)], "waits for the acknowledgements either way")
            readiness.settled = true
            let started = machine.readinessChanged(readiness)
            let settle: Duration? = carriesLogTimes ? nil : .milliseconds(500)
            #expect(started == [.fetch(.init(reason: .start, sessionStart: .zero, settle: settle))])
        }
    }

    @Test("a fetched value already delivered live is skipped; a live copy of a fetched one is recognised by its timestamp")
    func duplicates() {
        var (machine, _) = started()
        _ = machine.ended(succeeded: true, now: moment(20), readiness: ready)
        let live = mark("a", timestamp: at(30))
        let first = machine.admit(live, stream: StreamCatalog.plan, route: .live, now: moment(31), readiness: ready)
        #expect(first.admitted)
        _ = machine.connected(after: .reconnected, readiness: ready)
        let fetchedAgain = machine.admit(live, stream: StreamCatalog.plan, route: .caughtUp(loggedAt: at(30)), now: moment(40), readiness: ready)
        #expect(!fetchedAgain.admitted)
        let missed = mark("b", timestamp: at(35))
        let fetched = machine.admit(missed, stream: StreamCatalog.plan, route: .caughtUp(loggedAt: at(35)), now: moment(40), readiness: ready)
        #expect(fetched.admitted)
        #expect(machine.fetchedDelivered == 1 && machine.fetchedSkipped == 1)
        let (delivered, skipped, _) = machine.ended(succeeded: true, now: moment(41), readiness: ready)
        #expect(delivered == 1 && skipped == 1)
        let copy = machine.admit(missed, stream: StreamCatalog.plan, route: .live, now: moment(42), readiness: ready)
        #expect(!copy.admitted, "its live copy, late")
        let later = machine.admit(mark("b", timestamp: at(50)), stream: StreamCatalog.plan, route: .live, now: moment(51), readiness: ready)
        #expect(later.admitted, "equal fields, another time: a new event")
    }

    @Test("a gap during a catch-up chains the next one; the held envelopes wait for the whole chain")
    func chain() {
        var (machine, _) = started()
        let held = machine.holdQuietly(envelope("a"))
        #expect(held)
        let gap = machine.connected(after: .reconnected, readiness: ready)
        #expect(gap == [.announceGap(.reconnected)])
        let first = machine.ended(succeeded: true, now: moment(20), readiness: ready)
        #expect(first.actions == [.fetch(.init(reason: .gap(.reconnected), sessionStart: .zero, settle: nil))])
        #expect(machine.held.count == 1)
        let second = machine.ended(succeeded: false, now: moment(30), readiness: ready)
        #expect(second.actions == [.release([.init(envelope: envelope("a"), connection: 1)])])
    }

    @Test("retries only transient failures, doubling the delay, as many times as set")
    func retries() {
        let (machine, _) = started()
        #expect(machine.failed(attempt: 1, transient: true) == .retry(after: .seconds(1), attempt: 2))
        #expect(machine.failed(attempt: 2, transient: true) == .retry(after: .seconds(2), attempt: 3))
        #expect(machine.failed(attempt: 3, transient: true) == .giveUp)
        #expect(machine.failed(attempt: 1, transient: false) == .giveUp)
    }

    @Test("another user: held envelopes and a waiting catch-up are forgotten; one in flight still ends and releases")
    func forgetUser() {
        var (machine, _) = started()
        _ = machine.holdQuietly(envelope("a"))
        machine.forgetUser()
        #expect(machine.held.isEmpty)
        let held = machine.holdQuietly(envelope("b"))
        #expect(held, "the catch-up in flight still holds")
        let ended = machine.ended(succeeded: true, now: moment(5), readiness: ready)
        #expect(ended.actions == [.release([.init(envelope: envelope("b"), connection: 1)])])
    }

    @Test("memory warning: remembered deliveries ask for a catch-up when signed in; nothing while one runs")
    func memory() {
        var (machine, _) = started()
        let running = machine.trimForMemory(signedIn: true, readiness: ready)
        #expect(running.actions.isEmpty, "a catch-up runs")
        _ = machine.ended(succeeded: true, now: moment(20), readiness: ready)
        _ = machine.admit(mark("a", timestamp: at(21)), stream: StreamCatalog.plan, route: .live, now: moment(22), readiness: ready)
        let signedOut = machine.trimForMemory(signedIn: false, readiness: ready)
        #expect(signedOut.rememberedDeliveries == 0)
        let trim = machine.trimForMemory(signedIn: true, readiness: ready)
        #expect(trim.rememberedDeliveries == 1)
        #expect(trim.actions == [.fetch(.init(reason: .rememberedDeliveriesFull, sessionStart: .zero, settle: nil))])
    }

    @Test("a stream's window opens when its subscription's start went out (the first on the connection), not when the connection opened")
    func streamWindowsOpenAtTheirStart() {
        var machine = CatchUpMachine(settings: settings, startedAt: .zero, backendTime: backendTime)
        var legacy = ready
        legacy.acknowledgesSubscriptions = false
        machine.connectionOpened(at: moment(100))
        machine.subscriptionStarted([StreamCatalog.plan], at: moment(180))
        machine.subscriptionStarted([StreamCatalog.plan], at: moment(300))  // started again: the first counts
        _ = machine.connected(after: nil, readiness: legacy)
        // Fetched: "a" logged after the connection opened but before plan's start (it never
        // arrives live), "b" after the first start, before the second.
        for (org, logged) in [("a", 150), ("b", 200)] {
            let fetched = machine.admit(
                mark(org, timestamp: nil), stream: StreamCatalog.plan, route: .caughtUp(loggedAt: at(logged)),
                now: moment(400), readiness: legacy)
            #expect(fetched.admitted)
        }
        _ = machine.ended(succeeded: true, now: moment(401), readiness: legacy)
        let newA = machine.admit(mark("a", timestamp: nil), stream: StreamCatalog.plan, route: .live, now: moment(402), readiness: legacy)
        #expect(newA.admitted, "a new a was taken for the copy of one logged before plan's start")
        let copyB = machine.admit(mark("b", timestamp: nil), stream: StreamCatalog.plan, route: .live, now: moment(402), readiness: legacy)
        #expect(!copyB.admitted, "b, logged after the first start, was delivered twice")
    }

    /// The device's clock from the backend's, as the issue lists them.
    static let deviceOffsets: [Double] = [-86_400, -300, -5, -0.5, -0.05, 0.05, 0.5, 5, 300, 86_400]

    @Test("legacy copies are matched in the backend's time whatever the device's clock says, before and after it jumps",
          arguments: deviceOffsets)
    func legacyCopiesWithTheDeviceClockOff(offset: Double) {
        // The notifier was made with the device's clock `offset` off the backend's: its stand-in.
        var machine = CatchUpMachine(
            settings: settings, startedAt: .zero,
            backendTime: BackendTimeEstimate(deviceTime: start.addingTimeInterval(offset), at: .zero))
        var legacy = ready
        legacy.acknowledgesSubscriptions = false
        machine.connectionOpened(at: moment(100))
        _ = machine.connected(after: nil, readiness: legacy)
        // The fetch's answer taught the backend's clock: moment zero was `start` there (the
        // device's wall clock, meanwhile, may have jumped anywhere: the machine never reads it).
        machine.learned(backendTime)
        // Fetched: "a" logged 2 ms before the connection opened (it never arrives live), then
        // "b" and "a" again logged 2 and 4 ms after.
        for (org, logged) in [("a", 98), ("b", 102), ("a", 104)] {
            let fetched = machine.admit(
                mark(org, timestamp: nil), stream: StreamCatalog.plan, route: .caughtUp(loggedAt: at(logged)),
                now: moment(110), readiness: legacy)
            #expect(fetched.admitted)
        }
        // On another stream, "x" logged 2 ms before the connection opened: it never arrives live.
        let role = { (org: String) in
            Fingerprint(key: FingerprintKey(stream: StreamCatalog.role, fields: AnyHashable(org)), timestamp: nil)
        }
        let fetchedX = machine.admit(role("x"), stream: StreamCatalog.role, route: .caughtUp(loggedAt: at(98)), now: moment(110), readiness: legacy)
        #expect(fetchedX.admitted)
        _ = machine.ended(succeeded: true, now: moment(111), readiness: legacy)
        // A new "x" arriving live is news, not the copy of the one logged before the connection.
        let newX = machine.admit(role("x"), stream: StreamCatalog.role, route: .live, now: moment(112), readiness: legacy)
        #expect(newX.admitted, "device clock \(offset) s off: a new event was taken for the copy of one from before the connection")
        // Live copies of "b" and the second "a" arrive on the connection: both recognised.
        for org in ["b", "a"] {
            let copy = machine.admit(mark(org, timestamp: nil), stream: StreamCatalog.plan, route: .live, now: moment(112), readiness: legacy)
            #expect(!copy.admitted, "device clock \(offset) s off: the live copy of \(org) was delivered again")
        }
        // A new "a" after them is news.
        let new = machine.admit(mark("a", timestamp: nil), stream: StreamCatalog.plan, route: .live, now: moment(113), readiness: legacy)
        #expect(new.admitted, "device clock \(offset) s off: a new event was taken for a copy")
    }

}

extension CatchUpMachine {
    /// Holds `envelope` where no memory bound is near (the bounds have tests of their own).
    mutating func holdQuietly(_ envelope: EventEnvelope) -> Bool {
        let (held, actions) = hold(envelope)
        #expect(actions.isEmpty)
        return held
    }
}
