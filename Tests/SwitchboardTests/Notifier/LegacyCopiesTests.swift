import Foundation
import SwitchboardCore
import Testing

@testable import Switchboard

/// A reference to the value under test, so that `#expect` can call its mutating methods.
private final class Copies {
    var value = LegacyCopies()
    func fetched(_ key: String, stream: StreamID, loggedAt: Date) {
        value.fetched(Fingerprint(key: Self.key(key, stream), timestamp: nil), stream: stream, loggedAt: loggedAt)
    }
    func takeCopy(_ key: String, stream: StreamID, arrivedOn window: ConnectionWindow) -> Bool {
        value.takeCopy(Self.key(key, stream), stream: stream, arrivedOn: window)
    }
    /// The fingerprint key of a plan value with `key` as its organization, on `stream`.
    static func key(_ key: String, _ stream: StreamID) -> FingerprintKey {
        FingerprintKey(stream: stream, fields: AnyHashable(PlanStateOutput(orgId: key)))
    }
    func forget(loggedBefore date: Date) { value.forget(loggedBefore: date) }
    var count: Int { value.count }
}

/// The matching of live legacy GraphQL events (no timestamp) with the events catch-ups fetched.
@Suite("Legacy live copies of caught-up events")
struct LegacyCopiesTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let plan = StreamCatalog.plan

    func at(_ milliseconds: Int) -> Date { start.addingTimeInterval(Double(milliseconds) / 1000) }

    @Test("distinct values: each fetched event logged while the connection was open is recognised once; others are new")
    func distinct() {
        let copies = Copies()
        for (index, key) in ["a", "b", "c"].enumerated() { copies.fetched(key, stream: plan, loggedAt: at(100 + index)) }
        let window = ConnectionWindow(opened: at(50))
        #expect(copies.takeCopy("b", stream: plan, arrivedOn: window))
        #expect(copies.takeCopy("c", stream: plan, arrivedOn: window))
        #expect(!copies.takeCopy("c", stream: plan, arrivedOn: window), "one copy per fetched event")
        #expect(!copies.takeCopy("a", stream: plan, arrivedOn: window), "a was passed: copies arrive in log order")
        #expect(!copies.takeCopy("b", stream: StreamCatalog.role, arrivedOn: window), "another stream")
    }

    @Test("an event logged in the gap, before the connection opened, never takes a later equal live event for its copy")
    func gapEventsDoNotSwallow() {
        let copies = Copies()
        copies.fetched("true", stream: plan, loggedAt: at(10))  // missed in the gap
        copies.fetched("false", stream: plan, loggedAt: at(20))  // missed in the gap
        let window = ConnectionWindow(opened: at(30))
        #expect(!copies.takeCopy("true", stream: plan, arrivedOn: window))
    }

    @Test("equal values: the copy is the first matching event after the cursor, and the cursor only moves forward")
    func equalValuesInOrder() {
        let copies = Copies()
        for (index, key) in ["true", "false", "true"].enumerated() { copies.fetched(key, stream: plan, loggedAt: at(100 + index)) }
        let window = ConnectionWindow(opened: at(100))
        #expect(copies.takeCopy("false", stream: plan, arrivedOn: window), "the first true never arrived live")
        #expect(copies.takeCopy("true", stream: plan, arrivedOn: window))
        #expect(!copies.takeCopy("true", stream: plan, arrivedOn: window), "a new true, after every copy")
    }

    @Test("a closed connection carries only what was logged while it was open; the next one takes the rest")
    func closedWindow() {
        let copies = Copies()
        copies.fetched("a", stream: plan, loggedAt: at(100))
        copies.fetched("b", stream: plan, loggedAt: at(200))  // logged after the first connection was lost
        copies.fetched("c", stream: plan, loggedAt: at(300))
        let first = ConnectionWindow(opened: at(50), closed: at(150))
        let second = ConnectionWindow(opened: at(250))
        #expect(copies.takeCopy("a", stream: plan, arrivedOn: first))
        #expect(!copies.takeCopy("b", stream: plan, arrivedOn: second), "b was logged between the two connections")
        #expect(copies.takeCopy("c", stream: plan, arrivedOn: second))
    }

    @Test("the log's whole milliseconds: an event logged in the millisecond the connection opened may be on the connection")
    func millisecondBounds() {
        let window = ConnectionWindow(opened: at(100).addingTimeInterval(0.0007), closed: at(200).addingTimeInterval(0.0002))
        #expect(window.mayCarry(loggedAt: at(100)))
        #expect(!window.mayCarry(loggedAt: at(99)))
        #expect(window.mayCarry(loggedAt: at(201)))
        #expect(!window.mayCarry(loggedAt: at(202)))
    }

    @Test("forgetting drops what no later connection can carry and what the cursor passed")
    func forgetting() {
        let copies = Copies()
        for (index, key) in ["a", "b", "c", "d"].enumerated() { copies.fetched(key, stream: plan, loggedAt: at(100 * (index + 1))) }
        copies.fetched("x", stream: StreamCatalog.role, loggedAt: at(100))
        copies.fetched("y", stream: StreamCatalog.role, loggedAt: at(300))
        #expect(copies.takeCopy("c", stream: plan, arrivedOn: ConnectionWindow(opened: at(250))))
        copies.forget(loggedBefore: at(150))
        #expect(copies.count == 2, "a and b were passed; x is older than the bound; d and y stay")
        #expect(!copies.takeCopy("x", stream: StreamCatalog.role, arrivedOn: ConnectionWindow(opened: .distantPast)))
        #expect(copies.takeCopy("y", stream: StreamCatalog.role, arrivedOn: ConnectionWindow(opened: .distantPast)))
        #expect(copies.takeCopy("d", stream: plan, arrivedOn: ConnectionWindow(opened: at(350))))
        #expect(copies.count == 0)
    }
}
