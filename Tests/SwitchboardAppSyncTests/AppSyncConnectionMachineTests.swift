import SwitchboardCore
import SwitchboardTesting
import Testing

@testable import SwitchboardAppSync

private typealias Machine = AppSyncConnectionMachine
private typealias Action = Machine.Action

private func at(_ seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }

/// A machine signed in and connected at t = 0 (ack with a 10 s keep-alive timeout), holding the
/// given subscriptions, acknowledged.
private func connected(
    _ keys: [SubscriptionKey] = [], policy: ReconnectPolicy = .fixedDelay(.seconds(2)), random: inout SeededRandomNumberGenerator
) -> Machine {
    var machine = Machine(ackTimeout: .seconds(5), policy: policy, idPrefix: "t")
    _ = machine.connect()
    _ = machine.opened(machine.current, at: at(0))
    _ = machine.received(.connectionAck(connectionTimeoutMs: 10_000), on: machine.current, at: at(0), random: &random)
    for key in keys {
        let actions = machine.subscribe(key: key, channel: "/ns/\(key)")
        if case .send(_, .subscribe(_, let id, _))? = actions.first {
            _ = machine.received(.subscribeSuccess(id: id), on: machine.current, at: at(0), random: &random)
        }
    }
    return machine
}

private func subscribeIDs(_ actions: [Action]) -> [SubscriptionKey: String] {
    var ids: [SubscriptionKey: String] = [:]
    for case .send(_, .subscribe(let key, let id, _)) in actions { ids[key] = id }
    return ids
}

@Suite("AppSync connection state machine")
struct AppSyncConnectionMachineTests {
    @Test("connect sends connection_init, waits for the ack, then subscribes what is held")
    func handshake() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine(ackTimeout: .seconds(5), policy: .standard, idPrefix: "t")
        #expect(machine.subscribe(key: "a", channel: "/ns/a").isEmpty, "nothing is sent before the ack")
        #expect(machine.connect() == [.report(.connectionStateChanged(.connecting(attempt: 1))), .open(1, reason: .connect)])
        #expect(machine.opened(1, at: at(0)) == [.send(1, .connectionInit)])
        #expect(machine.nextDeadline == at(5))
        let actions = machine.received(.connectionAck(connectionTimeoutMs: 10_000), on: 1, at: at(1), random: &random)
        #expect(actions.first == .report(.connectionStateChanged(.connected)))
        let id = subscribeIDs(actions)["a"]
        #expect(id != nil)
        #expect(machine.nextDeadline == at(11))
        #expect(machine.received(.subscribeSuccess(id: id ?? ""), on: 1, at: at(1), random: &random) == [.report(.subscriptionEstablished("a"))])
        #expect(machine.received(.data(id: id ?? "", events: ["{}"]), on: 1, at: at(2), random: &random) == [.deliver("a", ["{}"])])
    }

    @Test("no ack in time closes and schedules a reconnect by the policy")
    func ackTimeout() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine(ackTimeout: .seconds(5), policy: .fixedDelay(.seconds(2)), idPrefix: "t")
        _ = machine.connect()
        _ = machine.opened(machine.current, at: at(0))
        #expect(machine.timerFired(at: at(4.9), random: &random).isEmpty)
        let actions = machine.timerFired(at: at(5), random: &random)
        #expect(actions.first == .close(1, code: .goingAway, reason: ""))
        #expect(actions.contains(.report(.error(SwitchboardError(code: .network, message: "connection-ack timeout: no connection_ack within 5 s")))))
        #expect(actions.last == .report(.connectionStateChanged(.waitingToReconnect(attempt: 2, delay: .seconds(2)))), "the second attempt comes next")
        #expect(machine.timerFired(at: at(6.9), random: &random).isEmpty)
        #expect(machine.timerFired(at: at(7), random: &random) == [
            .report(.connectionStateChanged(.connecting(attempt: 2))), .open(2, reason: .connect),
        ])
    }

    @Test("the keep-alive watchdog is reset by any frame and fires after connectionTimeoutMs of silence")
    func watchdog() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(random: &random)
        _ = machine.received(.keepAlive, on: machine.current, at: at(9), random: &random)
        #expect(machine.timerFired(at: at(10), random: &random).isEmpty)
        _ = machine.receivedGarbage(SwitchboardError(code: .protocolViolation, message: "x"), on: machine.current, at: at(18))
        #expect(machine.timerFired(at: at(27.9), random: &random).isEmpty)
        let actions = machine.timerFired(at: at(28), random: &random)
        #expect(actions.first == .close(machine.current, code: .goingAway, reason: ""))
        #expect(actions.contains(.report(.error(SwitchboardError(code: .network, message: "keep-alive timeout: no frame from the server within 10 s")))))
    }

    @Test("reads the client held back postpone the keep-alive watchdog to a window from then")
    func watchdogWhileReadsHeldBack() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(random: &random)
        _ = machine.received(.keepAlive, on: machine.current, at: at(9), random: &random)
        machine.readsHeldBack(on: machine.current, at: at(25))
        #expect(machine.timerFired(at: at(19), random: &random).isEmpty, "the deadline moved from 19 s")
        #expect(machine.timerFired(at: at(34.9), random: &random).isEmpty)
        let actions = machine.timerFired(at: at(35), random: &random)
        #expect(actions.contains(.report(.error(SwitchboardError(code: .network, message: "keep-alive timeout: no frame from the server within 10 s")))))
    }

    @Test("after a reconnect every live subscription is sent again with a fresh id")
    func resubscribe() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a", "b"], policy: .fixedDelay(.zero, reconnectAfterNormalClose: true), random: &random)
        let before = machine.current
        _ = machine.closed(before, close: WebSocketClose(code: .abnormalClosure), error: nil, at: at(1), random: &random)
        _ = machine.timerFired(at: at(1), random: &random)
        #expect(machine.current == before.next, "a new socket")
        _ = machine.opened(machine.current, at: at(1))
        let actions = machine.received(.connectionAck(connectionTimeoutMs: nil), on: machine.current, at: at(1), random: &random)
        let ids = subscribeIDs(actions)
        #expect(Set(ids.keys) == ["a", "b"])
        #expect(Set(ids.values).count == 2)
        #expect(!ids.values.contains("t-1") && !ids.values.contains("t-2"), "fresh ids: \(ids)")
        // A late frame from the old socket never reaches the machine (the driver drops it:
        // TransportDriverTests), and the old ids mean nothing any more.
        #expect(machine.received(.data(id: "t-1", events: ["{}"]), on: before, at: at(2), random: &random).isEmpty)
    }

    @Test("unsubscribe waits for the subscribe's acknowledgement")
    func unsubscribeAfterAck() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(random: &random)
        let id = subscribeIDs(machine.subscribe(key: "a", channel: "/ns/a"))["a"] ?? ""
        #expect(machine.unsubscribe(key: "a").isEmpty, "not before subscribe_success")
        #expect(machine.received(.subscribeSuccess(id: id), on: machine.current, at: at(1), random: &random)
            == [.send(machine.current, .unsubscribe(id: id))])
        #expect(machine.received(.data(id: id, events: ["{}"]), on: machine.current, at: at(1), random: &random).isEmpty)
    }

    @Test("subscribe_error ends only that subscription")
    func subscribeError() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let id = subscribeIDs(machine.subscribe(key: "b", channel: "/ns/b"))["b"] ?? ""
        let actions = machine.received(.subscribeError(id: id, [AppSyncError(errorType: "UnauthorizedException")]), on: machine.current, at: at(1), random: &random)
        guard case .report(.subscriptionFailed(let key, let error))? = actions.first else {
            Issue.record("no subscriptionFailed: \(actions)")
            return
        }
        #expect(key == "b" && error.code == .subscriptionRejected && error.message.contains("UnauthorizedException"))
        #expect(machine.received(.data(id: "t-1", events: ["{}"]), on: machine.current, at: at(2), random: &random) == [.deliver("a", ["{}"])])
    }

    @Test("an authorization failure refreshes the token once, then ends in sessionExpired")
    func authRefreshOnce() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine(ackTimeout: .seconds(5), policy: .fixedDelay(.zero), idPrefix: "t")
        _ = machine.connect()
        let refused = SwitchboardError(code: .network, message: "401")
        #expect(machine.openFailed(machine.current, ConnectFailure(refused, isAuthorization: true), at: at(0), random: &random)
            == [.report(.connectionStateChanged(.connecting(attempt: 1))), .open(2, reason: .refreshAfterRejection)])
        _ = machine.opened(2, at: at(0))
        let actions = machine.received(.connectionError([AppSyncError(errorType: "UnauthorizedException")]), on: 2, at: at(0), random: &random)
        guard case .report(.connectionStateChanged(.disconnected(let error?)))? = actions.last else {
            Issue.record("no disconnected: \(actions)")
            return
        }
        #expect(error.code == .sessionExpired)
        #expect(machine.nextDeadline == nil, "no loop")
    }

    @Test("sign-out closes and never reconnects")
    func signOut() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let generation = machine.current
        #expect(machine.disconnect() == [.close(generation, code: .normalClosure, reason: ""), .report(.connectionStateChanged(.idle))])
        #expect(machine.closed(generation, close: WebSocketClose(code: .normalClosure), error: nil, at: at(1), random: &random).isEmpty)
        #expect(machine.nextDeadline == nil)
    }
}
