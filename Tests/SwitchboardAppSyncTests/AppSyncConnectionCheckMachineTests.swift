import SwitchboardCore
import SwitchboardTesting
import Testing

@testable import SwitchboardAppSync

/// The connection check in the pure AppSync Events machine: inputs in, actions out, time passed in.
@Suite("AppSync connection machine: connection checks")
struct AppSyncConnectionCheckMachineTests {
    typealias Machine = AppSyncConnectionMachine

    static func at(_ seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }

    /// Signed in, connected at t = 0 with a 300 s keep-alive window, holding `a`, acknowledged.
    static func connected(_ random: inout SeededRandomNumberGenerator) -> Machine {
        var machine = Machine(ackTimeout: .seconds(5), policy: .fixedDelay(.seconds(10)), idPrefix: "t", connectionLifetime: nil)
        _ = machine.subscribe(key: "a", channel: "/ns/a")
        _ = machine.connect()
        _ = machine.opened(machine.current, at: at(0))
        let acked = machine.received(.connectionAck(connectionTimeoutMs: 300_000), on: machine.current, at: at(0), random: &random)
        for case .send(_, .subscribe(_, let id, _)) in acked {
            _ = machine.received(.subscribeSuccess(id: id), on: machine.current, at: at(0), random: &random)
        }
        return machine
    }

    @Test("connected: one ping, its deadline armed; a pong in time keeps the connection; a second call pings no more")
    func pongInTime() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Self.connected(&random)
        let generation = machine.current
        #expect(machine.verifyConnection(timeout: .seconds(2), at: Self.at(1)) == [.ping(generation)])
        #expect(machine.nextDeadline == Self.at(3))
        #expect(machine.verifyConnection(timeout: .seconds(2), at: Self.at(1.5)).isEmpty, "a check is running")
        #expect(machine.pongReceived(on: generation, at: Self.at(2.9)) == [.checkPassed(generation)])
        #expect(machine.nextDeadline == Self.at(300), "back to the keep-alive deadline")
        #expect(machine.timerFired(at: Self.at(3), random: &random).isEmpty)
        #expect(machine.verifyConnection(timeout: .seconds(2), at: Self.at(4)) == [.ping(generation)])
    }

    @Test("no pong by the deadline: close, report, connect at once with attempt 1, subscribe again after the ack")
    func noPong() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Self.connected(&random)
        let old = machine.current
        _ = machine.verifyConnection(timeout: .seconds(2), at: Self.at(1))
        #expect(machine.timerFired(at: Self.at(2.9), random: &random).isEmpty)
        let actions = machine.timerFired(at: Self.at(3), random: &random)
        let new = machine.current
        #expect(actions == [
            .close(old, code: .goingAway, reason: ""),
            .report(.error(SwitchboardError(code: .network, message: "connection check: no pong within 2 s"))),
            .report(.connectionStateChanged(.connecting(attempt: 1))),
            .open(new, reason: .connect),
        ])
        #expect(machine.pongReceived(on: old, at: Self.at(3.1)).isEmpty, "a late pong of the old socket is ignored")
        _ = machine.opened(new, at: Self.at(3.2))
        let acked = machine.received(.connectionAck(connectionTimeoutMs: 300_000), on: new, at: Self.at(3.3), random: &random)
        #expect(acked.contains { if case .send(new, .subscribe("a", _, "/ns/a")) = $0 { true } else { false } })
    }

    @Test("a pong that arrives at or after the deadline fails the check; so does a failed ping")
    func latePongAndFailedPing() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Self.connected(&random)
        var generation = machine.current
        _ = machine.verifyConnection(timeout: .seconds(2), at: Self.at(1))
        #expect(machine.pongReceived(on: generation, at: Self.at(3)).contains(.report(.connectionStateChanged(.connecting(attempt: 1)))))
        machine = Self.connected(&random)
        generation = machine.current
        _ = machine.verifyConnection(timeout: .seconds(2), at: Self.at(1))
        let failed = machine.pingFailed(on: generation, SwitchboardError(code: .network, message: "closed"), at: Self.at(1.1))
        #expect(failed.contains(.report(.error(SwitchboardError(code: .network, message: "connection check: the ping failed (closed)")))))
        #expect(failed.contains(.report(.connectionStateChanged(.connecting(attempt: 1)))))
    }

    @Test("waiting to reconnect: connect at once with the attempt it waited for; idle, connecting and stopped: nothing")
    func otherPhases() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var idle = Machine(ackTimeout: .seconds(5), policy: .never, idPrefix: "t")
        #expect(idle.verifyConnection(timeout: .seconds(2), at: Self.at(0)).isEmpty)
        _ = idle.connect()
        #expect(idle.verifyConnection(timeout: .seconds(2), at: Self.at(0)).isEmpty, "connecting")
        _ = idle.opened(idle.current, at: Self.at(0))
        #expect(idle.verifyConnection(timeout: .seconds(2), at: Self.at(0)).isEmpty, "awaiting the ack")
        _ = idle.closed(idle.current, close: WebSocketClose(code: .goingAway), error: nil, at: Self.at(1), random: &random)
        #expect(idle.phase == .stopped)
        #expect(idle.verifyConnection(timeout: .seconds(2), at: Self.at(1)).isEmpty, "stopped")

        var waiting = Self.connected(&random)
        _ = waiting.closed(waiting.current, close: WebSocketClose(code: .goingAway), error: nil, at: Self.at(1), random: &random)
        #expect(waiting.phase == .waiting(attempt: 1, until: Self.at(11)))
        let actions = waiting.verifyConnection(timeout: .seconds(2), at: Self.at(2))
        #expect(actions == [.report(.connectionStateChanged(.connecting(attempt: 1))), .open(waiting.current, reason: .connect)])
    }
}
