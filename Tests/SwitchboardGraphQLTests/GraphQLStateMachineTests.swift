import Foundation
@testable import SwitchboardGraphQL
import SwitchboardCore
import SwitchboardTesting
import Testing

typealias Machine = GraphQLConnectionStateMachine

extension Machine {
    static func make(_ dialect: GraphQLProtocol, policy: ReconnectPolicy = .fixedDelay(.seconds(2))) -> Machine {
        Machine(settings: .init(dialect: dialect, policy: policy, ackTimeout: .seconds(10), keepAliveTimeout: .seconds(30),
                                pingInterval: .seconds(15), pongTimeout: .seconds(5), idPrefix: ""))
    }

    /// Connects and acknowledges; returns the actions of the ack.
    mutating func connectAndAck(at now: Duration = .zero, window: Duration? = nil) -> [Action] {
        var random = SeededRandomNumberGenerator(seed: 1)
        _ = connect()
        _ = opened(lastConnection, handshake: "t", at: now)
        return received(.connectionAck(keepAliveWindow: window), on: lastConnection, at: now, random: &random)
    }
}

let operation = GraphQLOperation(query: "subscription { s }")
func request(_ key: SubscriptionKey) -> SubscriptionRequest { SubscriptionRequest(key: key, target: .graphQL(operation)) }

@Suite("GraphQL connection state machine", .timeLimit(.minutes(1)))
struct GraphQLStateMachineTests {
    var random = SeededRandomNumberGenerator(seed: 9)

    @Test("nothing is started before the ack; the ack starts every held subscription")
    mutating func startsWaitForAck() {
        var machine = Machine.make(.graphQLWS)
        _ = machine.subscribe(request("a"))
        let opening = machine.connect()
        #expect(opening == [.report(.connectionStateChanged(.connecting(attempt: 1))), .open(1, reason: .connect)])
        #expect(machine.opened(1, handshake: "t", at: .zero)
            == [.send(1, .connectionInit(token: "t"))])
        #expect(machine.nextDeadline == .seconds(10), "the ack deadline")
        let acked = machine.received(.connectionAck(keepAliveWindow: nil), on: 1, at: .seconds(1), random: &random)
        #expect(acked.contains(.send(1, .subscribe(id: "1", operation: operation, authorization: nil))))
        #expect(acked.contains(.report(.subscriptionEstablished("a"))), "established when sent on an acked connection")
    }

    @Test("graphql-ws ka watchdog starts with the first ka and fires after the window")
    mutating func keepAliveWatchdog() {
        var machine = Machine.make(.graphQLWS)
        _ = machine.connectAndAck()
        #expect(machine.timerFired(at: .seconds(100), random: &random).isEmpty, "no watchdog before the first ka")
        let ka = machine.received(.keepAlive, on: 1, at: .seconds(100), random: &random)
        #expect(ka.isEmpty)
        #expect(machine.nextDeadline == .seconds(130), "the watchdog is armed by the first ka")
        _ = machine.received(.keepAlive, on: 1, at: .seconds(120), random: &random)
        #expect(!machine.timerFired(at: .seconds(130), random: &random).contains { if case .close = $0 { true } else { false } })
        let dead = machine.timerFired(at: .seconds(150), random: &random)
        #expect(dead.contains(.close(1, code: .normalClosure, reason: "connection abandoned")))
        #expect(dead.contains(.report(.connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(2))))))
        // A connection-level deadline: reported as network, named in the message.
        #expect(dead.contains(.report(.error(SwitchboardError(code: .network, message: "keep-alive timeout: no keep-alive within 30 s")))))
    }

    @Test("reads the client held back postpone the ka watchdog to a window from then; another socket's do not")
    mutating func keepAliveWhileReadsHeldBack() {
        var machine = Machine.make(.graphQLWS)
        _ = machine.connectAndAck()
        _ = machine.received(.keepAlive, on: 1, at: .seconds(100), random: &random)
        machine.readsHeldBack(on: 2, at: .seconds(131))
        #expect(machine.nextDeadline == .seconds(130), "another socket changes nothing")
        machine.readsHeldBack(on: 1, at: .seconds(131))
        #expect(machine.nextDeadline == .seconds(161))
        #expect(!machine.timerFired(at: .seconds(131), random: &random).contains { if case .close = $0 { true } else { false } })
        let dead = machine.timerFired(at: .seconds(161), random: &random)
        #expect(dead.contains(.report(.error(SwitchboardError(code: .network, message: "keep-alive timeout: no keep-alive within 30 s")))))
    }

    @Test("AppSync ka deadline comes from connectionTimeoutMs")
    mutating func appSyncKeepAlive() {
        var machine = Machine.make(.appSyncGraphQL)
        let acked = machine.connectAndAck(window: .seconds(300))
        #expect(acked.contains(.report(.connectionStateChanged(.connected))))
        #expect(!machine.timerFired(at: .seconds(299), random: &random).contains { if case .close = $0 { true } else { false } })
        #expect(machine.timerFired(at: .seconds(300), random: &random).contains { if case .close = $0 { true } else { false } })
    }

    @Test("graphql-transport-ws pings on the interval, answers server pings, and times out without a pong")
    mutating func pingPong() {
        var machine = Machine.make(.graphQLTransportWS)
        _ = machine.connectAndAck()
        #expect(machine.received(.ping(payload: nil), on: 1, at: .seconds(1), random: &random)
            .contains(.send(1, .pong(payload: nil))))
        let ping = machine.timerFired(at: .seconds(15), random: &random)
        #expect(ping.contains(.send(1, .ping)))
        _ = machine.received(.pong, on: 1, at: .seconds(16), random: &random)
        #expect(machine.timerFired(at: .seconds(30), random: &random).contains(.send(1, .ping)))
        let dead = machine.timerFired(at: .seconds(35), random: &random)
        #expect(dead.contains(.close(1, code: WebSocketCloseCode(4499), reason: "connection abandoned")))
        #expect(dead.contains(.report(.error(SwitchboardError(code: .network, message: "keep-alive timeout: no pong within 5 s")))))
    }

    @Test("close-code table for graphql-transport-ws", arguments: [
        (UInt16(4400), "fatal"), (4406, "fatal"), (4409, "fatal"), (4429, "fatal"), (4500, "fatal"),
        (4401, "auth"), (4403, "auth"),
        (4408, "retry"), (4499, "retry"), (4504, "retry"), (1001, "retry"), (1006, "retry"), (1012, "retry"), (1013, "retry"),
        (1011, "retry"), (1002, "fatal"), (1008, "fatal"),
    ])
    func closeCodes(_ code: UInt16, _ verdict: String) {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine.make(.graphQLTransportWS)
        _ = machine.subscribe(request("a"))
        _ = machine.connectAndAck()
        let actions = machine.closed(1, close: WebSocketClose(code: WebSocketCloseCode(code)), error: nil,
                                     at: .seconds(1), random: &random)
        switch verdict {
        case "fatal":
            #expect(actions.contains { if case .report(.connectionStateChanged(.disconnected(_?))) = $0 { true } else { false } })
            #expect(machine.phase == .disconnected)
        case "auth":
            #expect(actions.contains(.open(2, reason: .refreshAfterRejection)))
        default:
            #expect(actions.contains(.report(.connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(2))))))
        }
    }

    @Test("auth failure refreshes once; a second one ends in sessionExpired; an ack resets the allowance")
    mutating func authOnce() {
        var machine = Machine.make(.graphQLWS)
        _ = machine.connect()
        _ = machine.opened(1, handshake: "t", at: .zero)
        let first = machine.received(.connectionError([.init(message: "no")]), on: 1, at: .zero, random: &random)
        #expect(first.contains(.open(2, reason: .refreshAfterRejection)))
        #expect(!first.contains { if case .report(.error) = $0 { true } else { false } },
                "the first rejection is retried quietly: sessionExpired means the refresh did not help")
        _ = machine.opened(2, handshake: "t2", at: .zero)
        let second = machine.received(.connectionError([.init(message: "no")]), on: 2, at: .zero, random: &random)
        #expect(second.contains { if case .report(.connectionStateChanged(.disconnected(let e?))) = $0 { e.code == .sessionExpired } else { false } })
        #expect(!second.contains { if case .open = $0 { true } else { false } })
        #expect(machine.phase == .disconnected)
    }

    @Test("a close the client did not ask for is reported as a network error before the retry", arguments: [
        WebSocketCloseCode.normalClosure, .goingAway, .internalError,
    ])
    mutating func serverCloseIsReported(_ code: WebSocketCloseCode) {
        var machine = Machine.make(.graphQLWS)
        _ = machine.subscribe(request("a"))
        _ = machine.connectAndAck()
        let lost = machine.closed(1, close: WebSocketClose(code: code, reason: "bye"), error: nil, at: .zero, random: &random)
        let reports = lost.compactMap { if case .report(let event) = $0 { event } else { nil } }
        #expect(reports.count == 2)
        guard case .error(let error)? = reports.first else {
            Issue.record("expected an error first, got \(reports)")
            return
        }
        #expect(error.code == .network)
        #expect(error.message.contains("\(code.rawValue)") && error.message.contains("bye"))
        #expect(reports.last == .connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(2))))
    }

    @Test("a subscription error stays local; no stop is ever sent for the failed id")
    mutating func errorLocal() {
        var machine = Machine.make(.graphQLWS)
        _ = machine.subscribe(request("a"))
        _ = machine.subscribe(request("b"))
        _ = machine.connectAndAck()
        let failed = machine.received(.next(id: "1", data: nil, errors: [.init(message: "invalid")]), on: 1, at: .zero, random: &random)
        #expect(failed == [.report(.subscriptionFailed("a", SwitchboardError(code: .subscriptionRejected, message: "invalid")))])
        #expect(machine.received(.complete(id: "1"), on: 1, at: .zero, random: &random).isEmpty)
        #expect(machine.unsubscribe("a").isEmpty)
        #expect(machine.unsubscribe("b") == [.send(1, .unsubscribe(id: "2"))])
        if case .connected = machine.phase {} else { Issue.record("the connection did not survive") }
    }

    @Test("AppSync: unsubscribe before start_ack sends stop only after the ack")
    mutating func stopAfterAck() {
        var machine = Machine.make(.appSyncGraphQL)
        _ = machine.subscribe(request("a"))
        _ = machine.connectAndAck(window: .seconds(300))
        #expect(machine.unsubscribe("a").isEmpty)
        #expect(machine.received(.subscriptionAck(id: "000000000001"), on: 1, at: .zero, random: &random)
            == [.send(1, .unsubscribe(id: "000000000001"))])
    }

    @Test("ids are never reused: resubscribing or reconnecting takes fresh ids")
    mutating func freshIDs() {
        var machine = Machine.make(.graphQLTransportWS)
        _ = machine.subscribe(request("a"))
        _ = machine.connectAndAck()
        #expect(machine.subscribe(request("a")).contains(.send(1, .subscribe(id: "2", operation: operation, authorization: nil))))
        _ = machine.closed(1, close: WebSocketClose(code: .abnormalClosure), error: nil, at: .zero, random: &random)
        _ = machine.timerFired(at: .seconds(2), random: &random)
        _ = machine.opened(2, handshake: "t", at: .seconds(2))
        let acked = machine.received(.connectionAck(keepAliveWindow: nil), on: 2, at: .seconds(2), random: &random)
        #expect(acked.contains(.send(2, .subscribe(id: "3", operation: operation, authorization: nil))))
        // A frame of the old socket never reaches the machine: the driver no longer holds socket 1
        // and drops it ("a frame of a socket the driver closed is dropped" in TransportDriverTests).
        #expect(machine.currentConnection == 2, "socket 1 was given up")
        #expect(machine.received(.next(id: "3", data: ResultData(Data("{}".utf8)), errors: []), on: 2, at: .seconds(3), random: &random)
            .contains(.deliver("a", GraphQLResult(data: ResultData(Data("{}".utf8))))))
    }

    @Test("a result with data and errors is delivered with the server's errors beside it, on every dialect; the subscription goes on",
          arguments: [GraphQLProtocol.graphQLWS, .graphQLTransportWS, .appSyncGraphQL])
    mutating func partialResult(dialect: GraphQLProtocol) {
        var machine = Machine.make(dialect)
        _ = machine.subscribe(request("a"))
        let acked = machine.connectAndAck()
        let id = acked.compactMap { action -> String? in
            switch action {
            case .send(_, .subscribe(let id, _, _)): id
            default: nil
            }
        }.first ?? "1"
        let data = ResultData(Data(#"{"subscribeOrganizationState":{"orgId":"o1","licensePhase":null,"isFreePlan":true}}"#.utf8))
        let actions = machine.received(
            .next(id: id, data: data, errors: [GraphQLServerError(message: "Enum 'LicensePhase' cannot represent value: 'Mystery'")]),
            on: 1, at: .seconds(1), random: &random)
        #expect(actions == [.deliver("a", GraphQLResult(data: data, errors: ["Enum 'LicensePhase' cannot represent value: 'Mystery'"]))])
        #expect(machine.received(.next(id: id, data: data, errors: []), on: 1, at: .seconds(2), random: &random)
            == [.deliver("a", GraphQLResult(data: data))], "still subscribed")
    }
}

@Suite("GraphQL connection state machine: timeouts and limits", .timeLimit(.minutes(1)))
struct GraphQLStateMachineTimeoutTests {
    var random = SeededRandomNumberGenerator(seed: 5)

    @Test("no ack within the ack timeout: close, a network error naming the connection-ack timeout, reconnect per policy; an early timer does nothing")
    mutating func ackTimeout() {
        var machine = Machine.make(.graphQLTransportWS)
        _ = machine.connect()
        _ = machine.opened(1, handshake: "t", at: .seconds(1))
        #expect(machine.timerFired(at: .seconds(10), random: &random).isEmpty)
        let timedOut = machine.timerFired(at: .seconds(11), random: &random)
        #expect(timedOut.contains(.report(.error(SwitchboardError(code: .network, message: "connection-ack timeout: no connection_ack within 10 s")))))
        #expect(timedOut.contains(.report(.connectionStateChanged(.waitingToReconnect(attempt: 2, delay: .seconds(2))))))
        #expect(machine.timerFired(at: .seconds(13), random: &random)
            == [.report(.connectionStateChanged(.connecting(attempt: 2))), .open(2, reason: .connect)])
    }

    @Test("a policy limit stops reconnecting with the error in disconnected")
    mutating func policyStops() {
        var machine = Machine.make(.graphQLWS, policy: .fixedDelay(.seconds(1), maxAttempts: 1))
        _ = machine.connectAndAck()
        let lost = machine.closed(1, close: nil, error: nil, at: .zero, random: &random)
        #expect(lost.contains(.report(.connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(1))))))
        _ = machine.timerFired(at: .seconds(1), random: &random)
        let failed = machine.openFailed(2, GraphQLDialect.classify(SwitchboardError(code: .network, message: "refused")),
                                        at: .seconds(1), random: &random)
        #expect(failed.contains(.report(.connectionStateChanged(.disconnected(SwitchboardError(code: .network, message: "refused"))))))
    }

    @Test("AppSync throttling without an id is an error that ends nothing")
    mutating func throttling() {
        var machine = Machine.make(.appSyncGraphQL)
        _ = machine.subscribe(request("a"))
        _ = machine.connectAndAck(window: .seconds(300))
        let actions = machine.received(.error(id: nil, errors: [.init(message: "slow down", errorType: "LimitExceededError")]),
                                       on: 1, at: .seconds(1), random: &random)
        #expect(actions.contains { if case .report(.error(let e)) = $0 { e.message.contains("LimitExceededError") } else { false } })
        #expect(machine.held["a"] != nil)
    }

    @Test("signed out (disconnect) while waiting to reconnect: the timer does nothing")
    mutating func noReconnectWhenSignedOut() {
        var machine = Machine.make(.graphQLWS)
        _ = machine.connectAndAck()
        _ = machine.closed(1, close: WebSocketClose(code: .goingAway), error: nil, at: .zero, random: &random)
        #expect(machine.disconnect() == [.report(.connectionStateChanged(.idle))])
        #expect(machine.timerFired(at: .seconds(5), random: &random).isEmpty)
    }

    @Test("a 403 handshake refreshes the token once")
    mutating func handshake403() {
        var machine = Machine.make(.appSyncGraphQL)
        _ = machine.connect()
        let actions = machine.openFailed(1, GraphQLDialect.classify(WebSocketHandshakeError(reason: .unexpectedStatus(403))),
                                         at: .zero, random: &random)
        #expect(actions.contains(.open(2, reason: .refreshAfterRejection)))
    }
}
