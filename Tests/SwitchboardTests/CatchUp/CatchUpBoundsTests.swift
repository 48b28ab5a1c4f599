import Foundation
import SwitchboardCore
import SwitchboardSync
import Testing

@testable import Switchboard

/// Catch-up's memory bounds, in bytes: each filled, what it forgets counted, and what follows.
@Suite("Catch-up machine: memory bounds")
struct CatchUpBoundsTests {
    let base = CatchUpMachineTests()
    var ready: CatchUpMachine.Readiness { base.ready }
    var plan: StreamID { StreamCatalog.plan }

    func settings(
        remembered: Int = 1 << 20, caughtUp: Int = 1 << 20, held: Int = 1 << 20, entries: Int = 100_000
    ) -> CatchUpMachine.Settings {
        CatchUpMachine.Settings(
            rememberedDeliveries: entries, subscriptionSettleTime: .milliseconds(500), retries: 2, retryDelay: .seconds(1),
            rememberedDeliveryBytes: remembered, caughtUpBytes: caughtUp, heldEnvelopeBytes: held)
    }

    @Test("an envelope counts its payload, its parsed index and its own fields")
    func envelopeBytes() {
        let small = base.envelope("a"), large = base.envelope(String(repeating: "x", count: 1000))
        #expect(small.retainedBytes > small.payload.count + 96, "the parsed index counts too")
        #expect(large.retainedBytes - small.retainedBytes >= 999 * 2, "the text, in the payload and in the document")
    }

    @Test("an envelope that would pass the held bound is dropped with those held, counted; a new connection is asked for once, and the running catch-up runs once more")
    func heldBound() {
        let envelopes = ["a", "b", "c", "d", "e"].map(base.envelope)
        var (machine, _) = base.started(settings(held: envelopes[0].retainedBytes * 2 + 1))
        for envelope in envelopes[..<2] {
            let (held, actions) = machine.hold(envelope)
            #expect(held && actions.isEmpty)
        }
        #expect(machine.heldBytes == envelopes[0].retainedBytes * 2)
        let (held, actions) = machine.hold(envelopes[2])
        #expect(held, "taken: dropped, not delivered now")
        #expect(actions == [.evicted(.heldEnvelopes, count: 3), .reconnect])
        #expect(machine.held.isEmpty && machine.heldBytes == 0)
        // The same connection still sends a few before it closes: held afresh, and should they
        // fill the room again, no second reconnection is asked for.
        _ = machine.hold(envelopes[3])
        _ = machine.hold(envelopes[4])
        let again = machine.hold(envelopes[0])
        #expect(again.actions == [.evicted(.heldEnvelopes, count: 3)])
        // The fetch in flight may have read the log before the dropped events were logged.
        let first = machine.ended(succeeded: true, now: base.moment(10), readiness: ready)
        #expect(first.actions == [.fetch(.init(reason: .heldEnvelopesFull, sessionStart: .zero, settle: nil))])
        let heldMore = machine.hold(envelopes[1])
        #expect(heldMore.held && heldMore.actions.isEmpty)
        let second = machine.ended(succeeded: true, now: base.moment(12), readiness: ready)
        #expect(second.actions == [.release([.init(envelope: envelopes[1], connection: 1)])])
        #expect(machine.heldBytes == 0)
    }

    @Test("legacy copies stay exact across a drop: the dropped events' connection is replaced, so a later equal event on the next one is new")
    func heldBoundLegacyCopies() {
        let a = base.envelope("a")
        var (machine, _) = base.started(settings(held: a.retainedBytes + 1))
        // The connection opened at 10; "a" (logged at 14) and "b" arrive live and are dropped.
        _ = machine.hold(a)
        let dropped = machine.hold(base.envelope("b"))
        #expect(dropped.actions.contains(.reconnect))
        // The notifier reconnects: a gap, which the chain's next catch-up covers.
        machine.connectionClosed(at: base.moment(17))
        machine.connectionOpened(at: base.moment(20))
        _ = machine.connected(after: .reconnected, readiness: ready)
        _ = machine.ended(succeeded: true, now: base.moment(21), readiness: ready)
        for (org, logged) in [("a", 14), ("b", 15)] {
            let fetched = machine.admit(base.mark(org, timestamp: base.at(logged)), stream: plan,
                                        route: .caughtUp(loggedAt: base.at(logged)), now: base.moment(22), readiness: ready)
            #expect(fetched.admitted)
        }
        _ = machine.ended(succeeded: true, now: base.moment(23), readiness: ready)
        // "a" and "b" published again, live on the new connection: new events.
        for org in ["a", "b"] {
            let live = machine.admit(base.mark(org, timestamp: nil), stream: plan, route: .live, now: base.moment(30), readiness: ready)
            #expect(live.admitted)
        }
    }

    @Test("remembered deliveries reaching their bytes start a catch-up that moves the checkpoint; its success forgets them")
    func rememberedBound() {
        var (machine, _) = base.started(settings(remembered: 250))
        _ = machine.ended(succeeded: true, now: base.moment(1), readiness: ready)
        for (index, org) in ["a", "b"].enumerated() {
            let (admitted, actions) = machine.admit(
                base.mark(org, timestamp: base.at(2 + index), bytes: 100), stream: plan, route: .live, now: base.moment(3), readiness: ready)
            #expect(admitted && actions.isEmpty)
        }
        let third = machine.admit(base.mark("c", timestamp: base.at(4), bytes: 100), stream: plan, route: .live, now: base.moment(5), readiness: ready)
        #expect(third.admitted)
        #expect(third.actions == [.fetch(.init(reason: .rememberedDeliveriesFull, sessionStart: .zero, settle: nil))])
        #expect(machine.rememberedDeliveries == 3, "nothing forgotten: the catch-up will move the checkpoint")
        _ = machine.ended(succeeded: true, now: base.moment(6), readiness: ready)
        #expect(machine.rememberedDeliveries == 0)
    }

    @Test("when no catch-up moves the checkpoint, remembered deliveries past twice the bound are cut back to it, counted")
    func rememberedEviction() {
        var (machine, _) = base.started(settings(remembered: 250))
        _ = machine.ended(succeeded: true, now: base.moment(1), readiness: ready)
        var offline = ready
        offline.connected = false
        var evicted: [CatchUpMachine.Action] = []
        // Released envelopes keep coming while the catch-up asked for cannot start.
        for index in 0..<6 {
            let (admitted, actions) = machine.admit(
                base.mark("\(index)", timestamp: base.at(10 + index), bytes: 100), stream: plan, route: .released(connection: 1),
                now: base.moment(20), readiness: offline)
            #expect(admitted)
            evicted += actions.filter { if case .evicted = $0 { true } else { false } }
        }
        #expect(evicted == [.evicted(.rememberedDeliveries, count: 4)], "at 600 bytes (over 500) cut to 200")
        #expect(machine.rememberedDeliveries == 2)
    }

    @Test("fingerprints of caught-up events stay within their bytes: the oldest go from the legacy order, counted, and their late copies are new")
    func caughtUpBound() {
        var (machine, _) = base.started(settings(caughtUp: 250))
        var evictions: [CatchUpMachine.Action] = []
        for (index, org) in ["a", "b", "c"].enumerated() {
            let (admitted, actions) = machine.admit(
                base.mark(org, timestamp: base.at(20 + index), bytes: 100), stream: plan,
                route: .caughtUp(loggedAt: base.at(20 + index)), now: base.moment(28), readiness: ready)
            #expect(admitted)
            evictions += actions
        }
        // Each way of recognising copies forgets one (the ordered, legacy one its oldest, "a"):
        // one event counted.
        #expect(evictions == [.evicted(.caughtUpFingerprints, count: 1)])
        _ = machine.ended(succeeded: true, now: base.moment(29), readiness: ready)
        let copyOfA = machine.admit(base.mark("a", timestamp: nil), stream: plan, route: .live, now: base.moment(30), readiness: ready)
        #expect(copyOfA.admitted, "forgotten: taken for a new event")
        let copyOfB = machine.admit(base.mark("b", timestamp: nil), stream: plan, route: .live, now: base.moment(31), readiness: ready)
        #expect(!copyOfB.admitted, "still known: recognised as the copy")
    }
}
