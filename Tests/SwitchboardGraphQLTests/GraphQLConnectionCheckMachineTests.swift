import Foundation
@testable import SwitchboardGraphQL
import SwitchboardCore
import SwitchboardTesting
import Testing

/// The connection check in the pure GraphQL machine, in every dialect.
@Suite("GraphQL connection machine: connection checks")
struct GraphQLConnectionCheckMachineTests {
    @Test("connected: one ping and a timer; a pong in time keeps the connection; a second call pings no more",
          arguments: GraphQLProtocol.allCases)
    func pongInTime(_ dialect: GraphQLProtocol) {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine.make(dialect)
        _ = machine.connectAndAck()
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .seconds(1)) == [.ping(1)])
        #expect(machine.nextDeadline == .seconds(3), "the check's deadline is armed")
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .seconds(1.5)).isEmpty, "a check is running")
        #expect(machine.pongReceived(on: 1, at: .seconds(2.9)) == [.checkPassed(1)])
        #expect(machine.timerFired(at: .seconds(3), random: &random).isEmpty, "the check passed: its deadline does nothing")
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .seconds(4)).first == .ping(1))
    }

    @Test("no pong by the deadline: close, report, connect at once with attempt 1, start every subscription again",
          arguments: GraphQLProtocol.allCases)
    func noPong(_ dialect: GraphQLProtocol) {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine.make(dialect)
        _ = machine.subscribe(request("a"))
        _ = machine.connectAndAck()
        _ = machine.verifyConnection(timeout: .seconds(2), at: .seconds(1))
        #expect(!machine.timerFired(at: .seconds(2.9), random: &random).contains { if case .close = $0 { true } else { false } })
        let actions = machine.timerFired(at: .seconds(3), random: &random)
        let code: WebSocketCloseCode = dialect == .graphQLTransportWS ? WebSocketCloseCode(4499) : .normalClosure
        #expect(actions == [
            .close(1, code: code, reason: "connection check failed"),
            .report(.error(SwitchboardError(code: .network, message: "connection check: no pong within 2 s"))),
            .report(.connectionStateChanged(.connecting(attempt: 1))),
            .open(2, reason: .connect),
        ])
        #expect(machine.pongReceived(on: 1, at: .seconds(3.1)).isEmpty, "a late pong of the old socket is ignored")
        _ = machine.opened(2, handshake: "t", at: .seconds(3.2))
        let acked = machine.received(.connectionAck(keepAliveWindow: nil), on: 2, at: .seconds(3.3), random: &random)
        #expect(acked.contains { if case .send(2, .subscribe) = $0 { true } else { false } })
    }

    @Test("a late pong or a failed ping fails the check", arguments: GraphQLProtocol.allCases)
    func latePongAndFailedPing(_ dialect: GraphQLProtocol) {
        var machine = Machine.make(dialect)
        _ = machine.connectAndAck()
        _ = machine.verifyConnection(timeout: .seconds(2), at: .seconds(1))
        #expect(machine.pongReceived(on: 1, at: .seconds(3)).contains(.report(.connectionStateChanged(.connecting(attempt: 1)))))
        var other = Machine.make(dialect)
        _ = other.connectAndAck()
        _ = other.verifyConnection(timeout: .seconds(2), at: .seconds(1))
        let failed = other.pingFailed(on: 1, SwitchboardError(code: .network, message: "closed"), at: .seconds(1.1))
        #expect(failed.contains(.report(.error(SwitchboardError(code: .network, message: "connection check: the ping failed (closed)")))))
    }

    @Test("waiting to reconnect: connect at once; idle, opening, awaiting the ack, disconnected, shut down: nothing")
    func otherPhases() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine.make(.graphQLWS, policy: .never)
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .zero).isEmpty, "idle")
        _ = machine.connect()
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .zero).isEmpty, "opening")
        _ = machine.opened(1, handshake: "t", at: .zero)
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .zero).isEmpty, "awaiting the ack")
        _ = machine.closed(1, close: WebSocketClose(code: .goingAway), error: nil, at: .seconds(1), random: &random)
        #expect(machine.phase == .disconnected)
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .seconds(1)).isEmpty, "disconnected")
        _ = machine.shutDown()
        #expect(machine.verifyConnection(timeout: .seconds(2), at: .seconds(1)).isEmpty, "shut down")

        var waiting = Machine.make(.graphQLWS, policy: .fixedDelay(.seconds(10)))
        _ = waiting.connectAndAck()
        _ = waiting.closed(1, close: WebSocketClose(code: .goingAway), error: nil, at: .seconds(1), random: &random)
        #expect(waiting.phase == .waitingToReconnect(attempt: 1, until: .seconds(11)))
        #expect(waiting.verifyConnection(timeout: .seconds(2), at: .seconds(2))
            == [.report(.connectionStateChanged(.connecting(attempt: 1))), .open(2, reason: .connect)])
    }
}
