import Foundation
import Testing

@testable import SwitchboardSoak

@Suite("Soak ledger: missing, duplicated, out of order")
struct SoakLedgerTests {
    @Test("unique events: a gap is missing, a second delivery a duplicate, a late first delivery out of order")
    func unique() {
        var ledger = SoakLedger(identities: [.unique])
        for round in 0..<5 { ledger.published(0, slot: round) }
        for round in [0, 2, 1, 2, 4] { ledger.delivered(0, slot: round) }
        #expect(!ledger.isComplete)
        #expect(ledger.tally(0) == .init(published: 5, delivered: 5, missing: 1, duplicated: 1, outOfOrder: 1))
        ledger.delivered(0, slot: 3)
        #expect(ledger.isComplete)
        #expect(ledger.tally(0).missing == 0)
        #expect(ledger.tally(0).outOfOrder == 2)
    }

    @Test("an hour's worth of events: the ledger forgets rounds delivered in full, and still counts late duplicates, gaps and reordering")
    func forgetsDeliveredRounds() {
        var ledger = SoakLedger(identities: [.unique])
        let rounds = 200_000
        for round in 0..<rounds { ledger.published(0, slot: round) }
        // Every round once, in order, but round 150,000 is held back, and 150,001 comes twice.
        for round in 0..<rounds where round != 150_000 {
            ledger.delivered(0, slot: round)
            if round == 150_001 { ledger.delivered(0, slot: round) }
        }
        #expect(ledger.heldRounds < 60_000, "only the rounds from the gap on are held")
        #expect(ledger.tally(0) == .init(published: rounds, delivered: rounds, missing: 1, duplicated: 1))
        // A late duplicate of a forgotten round, then the missing one, late.
        ledger.delivered(0, slot: 10)
        ledger.delivered(0, slot: 150_000)
        #expect(ledger.isComplete)
        #expect(ledger.tally(0) == .init(published: rounds, delivered: rounds + 2, missing: 0, duplicated: 2, outOfOrder: 1))
        #expect(ledger.heldRounds < SoakLedger.forgetInBatchesOf * 2, "the gap filled, the rest forgotten")
    }

    @Test("deliveries that match no published event are unrecognised, not counted as coverage")
    func unrecognised() {
        var ledger = SoakLedger(identities: [.unique])
        ledger.published(0, slot: 0)
        ledger.delivered(0, slot: nil)
        ledger.delivered(0, slot: 7)
        #expect(!ledger.isComplete)
        #expect(ledger.tally(0) == .init(published: 1, delivered: 2, missing: 1, unrecognised: 2))
    }

    @Test("value classes: shortfall and excess per class, beyond 255 deliveries too")
    func classes() {
        var ledger = SoakLedger(identities: [.classes(2), .unique])
        for round in 0..<600 { ledger.published(0, slot: round % 2) }
        for round in 0..<599 { ledger.delivered(0, slot: round % 2) }
        #expect(!ledger.isComplete)
        #expect(ledger.tally(0) == .init(published: 600, delivered: 599, missing: 1))
        ledger.delivered(0, slot: 0)
        #expect(ledger.tally(0) == .init(published: 600, delivered: 600, missing: 1, duplicated: 1))
        ledger.delivered(0, slot: 1)
        #expect(ledger.isComplete)
        #expect(ledger.tally(0).missing == 0)
        #expect(ledger.tally(0) + ledger.tally(1) == ledger.tally(0))
    }

    @Test("every published event of the workload is recognised by its stream's consumer rule")
    func workloadRoundTrip() {
        let workload = SoakWorkload()
        for transport in SoakTransport.allCases {
            let identities = SoakStream.allCases.map { $0.identity(over: transport) }
            for index in 0..<36 {
                let event = workload.event(index)
                #expect(event.stream.rawValue == index % 9)
                #expect(event.channel.hasSuffix(event.stream.relativeChannel))
                let slot = workload.slot(of: event, identity: identities[event.stream.rawValue])
                if identities[event.stream.rawValue] == .unique { #expect(slot == index / 9) }
            }
        }
        #expect(SoakWorkload.round(tag: "soak-41") == 41)
        #expect(SoakWorkload.round(tag: "camera-1") == nil)
        #expect(workload.round(timestamp: workload.base.addingTimeInterval(0.013), stream: .license) == 1)
        #expect(workload.round(timestamp: workload.base.addingTimeInterval(0.012), stream: .license) == nil)
    }
}
