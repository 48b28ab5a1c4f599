import Foundation
import SwitchboardCore
import SwitchboardSync
import Testing

@testable import Switchboard

/// A reference to the value under test, so that `#expect` can call its mutating methods.
private final class Copies {
    var value = LegacyCopies()
    let backendTime: BackendTimeEstimate
    init(backendTime: BackendTimeEstimate) { self.backendTime = backendTime }
    func fetched(_ key: String, stream: StreamID, loggedAt: Date) {
        value.fetched(Fingerprint(key: Self.key(key, stream), timestamp: nil), stream: stream, loggedAt: loggedAt)
    }
    func takeCopy(_ key: String, stream: StreamID, arrivedOn window: ConnectionWindow) -> Bool {
        value.takeCopy(Self.key(key, stream), stream: stream, arrivedOn: window, backendTime: backendTime)
    }
    /// The fingerprint key of a plan value with `key` as its organization, on `stream`.
    static func key(_ key: String, _ stream: StreamID) -> FingerprintKey {
        FingerprintKey(stream: stream, fields: AnyHashable(PlanStateOutput(orgId: key)))
    }
    func forget(notCarriedAfter moment: Duration) { value.forget(notCarriedAfter: moment, backendTime: backendTime) }
    var count: Int { value.count }
}

/// The matching of live legacy GraphQL events (no timestamp) with the events catch-ups fetched.
@Suite("Legacy live copies of caught-up events")
struct LegacyCopiesTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let plan = StreamCatalog.plan

    /// The backend's time `milliseconds` after the start.
    func at(_ milliseconds: Int) -> Date { start.addingTimeInterval(Double(milliseconds) / 1000) }
    /// The moment of the notifier's timeline `milliseconds` after the start.
    func moment(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }
    /// A sync answer read the backend's clock as ``start`` at moment zero, with a round trip of
    /// `roundTrip`.
    func backendTime(roundTrip: Duration = .zero) -> BackendTimeEstimate {
        var estimate = BackendTimeEstimate(deviceTime: start.addingTimeInterval(-3_600), at: .zero)
        estimate.record(serverTime: start, sent: .zero - roundTrip / 2, received: roundTrip / 2)
        return estimate
    }

    @Test("distinct values: each fetched event logged while the connection was open is recognised once; others are new")
    func distinct() {
        let copies = Copies(backendTime: backendTime())
        for (index, key) in ["a", "b", "c"].enumerated() { copies.fetched(key, stream: plan, loggedAt: at(100 + index)) }
        let window = ConnectionWindow(opened: moment(50))
        #expect(copies.takeCopy("b", stream: plan, arrivedOn: window))
        #expect(copies.takeCopy("c", stream: plan, arrivedOn: window))
        #expect(!copies.takeCopy("c", stream: plan, arrivedOn: window), "one copy per fetched event")
        #expect(!copies.takeCopy("a", stream: plan, arrivedOn: window), "a was passed: copies arrive in log order")
        #expect(!copies.takeCopy("b", stream: StreamCatalog.role, arrivedOn: window), "another stream")
    }

    @Test("an event logged in the gap, before the connection opened, never takes a later equal live event for its copy")
    func gapEventsDoNotSwallow() {
        let copies = Copies(backendTime: backendTime())
        copies.fetched("true", stream: plan, loggedAt: at(10))  // missed in the gap
        copies.fetched("false", stream: plan, loggedAt: at(20))  // missed in the gap
        let window = ConnectionWindow(opened: moment(30))
        #expect(!copies.takeCopy("true", stream: plan, arrivedOn: window))
    }

    @Test("equal values: the copy is the first matching event after the cursor, and the cursor only moves forward")
    func equalValuesInOrder() {
        let copies = Copies(backendTime: backendTime())
        for (index, key) in ["true", "false", "true"].enumerated() { copies.fetched(key, stream: plan, loggedAt: at(100 + index)) }
        let window = ConnectionWindow(opened: moment(100))
        #expect(copies.takeCopy("false", stream: plan, arrivedOn: window), "the first true never arrived live")
        #expect(copies.takeCopy("true", stream: plan, arrivedOn: window))
        #expect(!copies.takeCopy("true", stream: plan, arrivedOn: window), "a new true, after every copy")
    }

    @Test("a stream whose start went out after the connection opened carries nothing logged before it, less the estimate's uncertainty")
    func streamStartedLater() {
        // The estimate is 2 ms uncertain (a 4 ms round trip).
        let copies = Copies(backendTime: backendTime(roundTrip: .milliseconds(4)))
        copies.fetched("true", stream: plan, loggedAt: at(50))  // after the connection, before plan's start
        copies.fetched("false", stream: plan, loggedAt: at(99))  // within the uncertainty before the start
        var window = ConnectionWindow(opened: moment(10))
        window.started[plan] = moment(100)
        // A later live true is new: the fetched one was logged before plan's start and never came.
        #expect(!copies.takeCopy("true", stream: plan, arrivedOn: window))
        #expect(copies.takeCopy("false", stream: plan, arrivedOn: window), "read earlier by the uncertainty: may be on it")
        // Another stream's window opens with the connection.
        copies.fetched("true", stream: StreamCatalog.license, loggedAt: at(50))
        #expect(copies.takeCopy("true", stream: StreamCatalog.license, arrivedOn: window))
        // Never earlier than the connection: a start before it counts from the opening.
        window.started[plan] = moment(0)
        #expect(!window.mayCarry(loggedAt: at(5), stream: plan, backendTime: backendTime()))
    }

    @Test("a closed connection carries only what was logged while it was open; the next one takes the rest")
    func closedWindow() {
        let copies = Copies(backendTime: backendTime())
        copies.fetched("a", stream: plan, loggedAt: at(100))
        copies.fetched("b", stream: plan, loggedAt: at(200))  // logged after the first connection was lost
        copies.fetched("c", stream: plan, loggedAt: at(300))
        let first = ConnectionWindow(opened: moment(50), closed: moment(150))
        let second = ConnectionWindow(opened: moment(250))
        #expect(copies.takeCopy("a", stream: plan, arrivedOn: first))
        #expect(!copies.takeCopy("b", stream: plan, arrivedOn: second), "b was logged between the two connections")
        #expect(copies.takeCopy("c", stream: plan, arrivedOn: second))
    }

    @Test("the log's whole milliseconds: an event logged in the millisecond the connection opened may be on the connection")
    func millisecondBounds() {
        let window = ConnectionWindow(opened: moment(100) + .microseconds(700), closed: moment(200) + .microseconds(200))
        let backendTime = backendTime()
        #expect(window.mayCarry(loggedAt: at(100), backendTime: backendTime))
        #expect(!window.mayCarry(loggedAt: at(99), backendTime: backendTime))
        #expect(window.mayCarry(loggedAt: at(201), backendTime: backendTime))
        #expect(!window.mayCarry(loggedAt: at(202), backendTime: backendTime))
    }

    @Test("the window is read in the backend's time, its close widened by the estimate's uncertainty, never on the device's clock")
    func backendTimeWindow() {
        // The device's clock is an hour behind (the fallback); the sync answer's round trip was 10 ms.
        let backendTime = backendTime(roundTrip: .milliseconds(10))
        let window = ConnectionWindow(opened: moment(100), closed: moment(200))
        #expect(window.mayCarry(loggedAt: at(100), backendTime: backendTime))
        #expect(!window.mayCarry(loggedAt: at(99), backendTime: backendTime), "the opening is not widened: a gap event never matches")
        #expect(window.mayCarry(loggedAt: at(204), backendTime: backendTime), "within half the round trip after it closed")
        #expect(!window.mayCarry(loggedAt: at(207), backendTime: backendTime))
        // Without any sample the device's clock is all there is: an hour off, nothing matches.
        let deviceOnly = BackendTimeEstimate(deviceTime: start.addingTimeInterval(-3_600), at: .zero)
        #expect(!window.mayCarry(loggedAt: at(150), backendTime: deviceOnly))
    }

    @Test("forgetting drops what no later connection can carry and what the cursor passed")
    func forgetting() {
        let copies = Copies(backendTime: backendTime())
        for (index, key) in ["a", "b", "c", "d"].enumerated() { copies.fetched(key, stream: plan, loggedAt: at(100 * (index + 1))) }
        copies.fetched("x", stream: StreamCatalog.role, loggedAt: at(100))
        copies.fetched("y", stream: StreamCatalog.role, loggedAt: at(300))
        #expect(copies.takeCopy("c", stream: plan, arrivedOn: ConnectionWindow(opened: moment(250))))
        copies.forget(notCarriedAfter: moment(150))
        #expect(copies.count == 2, "a and b were passed; x is older than the bound; d and y stay")
        #expect(!copies.takeCopy("x", stream: StreamCatalog.role, arrivedOn: ConnectionWindow(opened: .seconds(-86_400))))
        #expect(copies.takeCopy("y", stream: StreamCatalog.role, arrivedOn: ConnectionWindow(opened: .seconds(-86_400))))
        #expect(copies.takeCopy("d", stream: plan, arrivedOn: ConnectionWindow(opened: moment(350))))
        #expect(copies.count == 0)
    }
}
