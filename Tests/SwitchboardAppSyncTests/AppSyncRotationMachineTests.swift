import SwitchboardCore
import SwitchboardTesting
import Testing

@testable import SwitchboardAppSync

private typealias Machine = AppSyncConnectionMachine
private typealias Action = Machine.Action

private func at(_ seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }

private let hour = 3600.0

/// A machine with a one-hour connection lifetime, connected at t = 0 (keep-alive timeout one
/// day, so only the lifetime matters), holding `keys`, acknowledged.
private func connected(_ keys: [SubscriptionKey], random: inout SeededRandomNumberGenerator) -> Machine {
    var machine = Machine(
        ackTimeout: .seconds(5), policy: .fixedDelay(.seconds(2)), idPrefix: "t", connectionLifetime: .seconds(3600),
        replacementRetryDelay: .seconds(60))
    _ = machine.connect()
    _ = machine.opened(machine.current, at: at(0))
    _ = machine.received(.connectionAck(connectionTimeoutMs: 86_400_000), on: machine.current, at: at(0), random: &random)
    for key in keys {
        for case .send(_, .subscribe(_, let id, _)) in machine.subscribe(key: key, channel: "/ns/\(key)") {
            _ = machine.received(.subscribeSuccess(id: id), on: machine.current, at: at(0), random: &random)
        }
    }
    return machine
}

private func subscribes(_ actions: [Action]) -> [SubscriptionKey: (connection: ConnectionID, id: String)] {
    var found: [SubscriptionKey: (connection: ConnectionID, id: String)] = [:]
    for case .send(let connection, .subscribe(let key, let id, _)) in actions { found[key] = (connection, id) }
    return found
}

/// Starts the replacement at the lifetime: returns the candidate's socket and its
/// subscribe ids, with the candidate acknowledged but no subscription answered yet.
private func startReplacement(
    _ machine: inout Machine, at time: Double, random: inout SeededRandomNumberGenerator
) -> (connection: ConnectionID, ids: [SubscriptionKey: String]) {
    let due = machine.timerFired(at: at(time), random: &random)
    guard case .openReplacement(let candidate, _)? = due.first else {
        Issue.record("no replacement opened: \(due)")
        return (0, [:])
    }
    #expect(machine.opened(candidate, at: at(time)) == [.send(candidate, .connectionInit)])
    let acked = machine.received(.connectionAck(connectionTimeoutMs: 86_400_000), on: candidate, at: at(time), random: &random)
    return (candidate, subscribes(acked).mapValues(\.id))
}

@Suite("AppSync connection replacement before the 24 h limit")
struct AppSyncRotationMachineTests {
    @Test("at the lifetime a second socket opens while the first keeps delivering")
    func opensBesideTheCurrent() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let current = machine.current
        #expect(machine.nextDeadline == at(hour), "the lifetime is the next deadline")
        #expect(machine.timerFired(at: at(hour - 1), random: &random).isEmpty)
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        #expect(candidate != current && machine.current == current, "the current connection stays current")
        #expect(Set(ids.keys) == ["a"])
        #expect(ids["a"] != "t-1", "a fresh id on the new socket")
        // The old socket still delivers, and nothing says the connection changed.
        #expect(machine.received(.data(id: "t-1", events: ["{\"n\":1}"]), on: current, at: at(hour), random: &random)
            == [.deliver("a", ["{\"n\":1}"])])
    }

    @Test("the old socket closes only after every subscription is answered on the new one")
    func makeBeforeBreak() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a", "b"], random: &random)
        let old = machine.current
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        #expect(machine.received(.subscribeSuccess(id: ids["a"] ?? ""), on: candidate, at: at(hour), random: &random).isEmpty,
            "b is still unanswered: no switch yet")
        let switched = machine.received(.subscribeSuccess(id: ids["b"] ?? ""), on: candidate, at: at(hour + 1), random: &random)
        #expect(switched == [.transport(.replaced(from: old, to: candidate)), .retire(old, code: .normalClosure)],
            "the old socket is closed but still read until the server's close")
        #expect(machine.current == candidate)
        #expect(!switched.contains { if case .report = $0 { true } else { false } }, "consumers see no state change and no re-establishment")
        #expect(machine.nextDeadline == at(2 * hour + 1), "the next replacement is one lifetime after the switch")
    }

    @Test("during the overlap each event is delivered once and in publish order, however the two sockets interleave")
    func onceAndInOrder() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.current
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        let newID = ids["a"] ?? ""
        _ = machine.received(.subscribeSuccess(id: newID), on: candidate, at: at(hour), random: &random)
        // e1 was published before the new subscription existed (old socket only); e2…e4 went to
        // both. The new socket is faster: its e2, e3 arrive before the old socket's e1.
        #expect(machine.received(.data(id: newID, events: ["e2", "e3"]), on: candidate, at: at(hour), random: &random).isEmpty,
            "held until the old socket has closed")
        #expect(machine.received(.data(id: "t-1", events: ["e1", "e2"]), on: old, at: at(hour), random: &random)
            == [.deliver("a", ["e1", "e2"])])
        // Identical texts on one socket are separate events.
        #expect(machine.received(.data(id: "t-1", events: ["e3", "e3"]), on: old, at: at(hour), random: &random)
            == [.deliver("a", ["e3", "e3"])])
        #expect(machine.received(.data(id: newID, events: ["e4"]), on: candidate, at: at(hour), random: &random).isEmpty)
        // The old socket closes: what only the new one carried (e4) follows, once.
        #expect(machine.closed(old, close: WebSocketClose(code: .normalClosure), error: nil, at: at(hour + 1), random: &random)
            == [.deliver("a", ["e4"])])
        // The new socket's late copy of the second e3 is still recognised during the grace period.
        #expect(machine.received(.data(id: newID, events: ["e3", "e5"]), on: candidate, at: at(hour + 2), random: &random)
            == [.deliver("a", ["e5"])])
        // After the grace period nothing is held back any more.
        #expect(machine.nextDeadline == at(hour + 11))
        _ = machine.timerFired(at: at(hour + 11), random: &random)
        #expect(machine.received(.data(id: newID, events: ["e1"]), on: candidate, at: at(hour + 12), random: &random)
            == [.deliver("a", ["e1"])])
    }

    @Test("while two sockets overlap, events published before the switch still arrive from the old one")
    func drainsTheOldSocket() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.current
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        _ = machine.received(.subscribeSuccess(id: ids["a"] ?? ""), on: candidate, at: at(hour), random: &random)
        // After the switch, a frame the old socket sent before its close still counts.
        #expect(machine.received(.data(id: "t-1", events: ["late"]), on: old, at: at(hour), random: &random)
            == [.deliver("a", ["late"])])
        #expect(machine.received(.data(id: ids["a"] ?? "", events: ["late"]), on: candidate, at: at(hour), random: &random).isEmpty)
    }

    @Test("a refused or silent candidate leaves the current connection in place and is retried")
    func failedReplacement() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let current = machine.current
        guard case .openReplacement(let first, _)? = machine.timerFired(at: at(hour), random: &random).first else {
            Issue.record("no replacement")
            return
        }
        let refused = machine.openFailed(
            first, ConnectFailure(SwitchboardError(code: .network, message: "refused"), isAuthorization: false), at: at(hour), random: &random)
        #expect(refused.count == 1)
        guard case .report(.error(let error))? = refused.first else {
            Issue.record("no error reported: \(refused)")
            return
        }
        #expect(error.code == .network && error.message.contains("trying again"))
        #expect(machine.current == current)
        #expect(machine.received(.data(id: "t-1", events: ["x"]), on: current, at: at(hour), random: &random) == [.deliver("a", ["x"])])
        #expect(machine.nextDeadline == at(hour + 60))
        // The retry's socket opens but never acknowledges: given up after the ack timeout.
        guard case .openReplacement(let second, _)? = machine.timerFired(at: at(hour + 60), random: &random).first else {
            Issue.record("no retry")
            return
        }
        _ = machine.opened(second, at: at(hour + 60))
        let late = machine.timerFired(at: at(hour + 65), random: &random)
        #expect(late.first == .close(second, code: .normalClosure, reason: ""))
        let lateError: SwitchboardError? = late.lazy.compactMap { if case .report(.error(let error)) = $0 { error } else { nil } }.first
        #expect(lateError?.code == .network)
        #expect((lateError?.cause as? SwitchboardError)?.message == "connection-ack timeout: no connection_ack within 5 s")
        #expect(machine.current == current)
    }

    @Test("a subscription refused on the new socket ends, and the rest switch over")
    func refusedOnCandidate() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a", "b"], random: &random)
        let old = machine.current
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        _ = machine.received(.subscribeSuccess(id: ids["a"] ?? ""), on: candidate, at: at(hour), random: &random)
        let actions = machine.received(
            .subscribeError(id: ids["b"], [AppSyncError(errorType: "Unauthorized")]), on: candidate, at: at(hour), random: &random)
        #expect(actions.contains(.send(old, .unsubscribe(id: "t-2"))))
        #expect(actions.contains { if case .report(.subscriptionFailed("b", let error)) = $0 { error.code == .subscriptionRejected } else { false } })
        #expect(actions.contains(.transport(.replaced(from: old, to: candidate))))
    }

    @Test("subscribing and unsubscribing during a replacement reach both sockets")
    func changesDuringReplacement() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.current
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        // A new subscription goes to the current socket and to the candidate.
        let both = machine.subscribe(key: "d", channel: "/ns/d")
        #expect(Set(both.compactMap { if case .send(let connection, .subscribe("d", _, _)) = $0 { connection } else { nil } }) == [old, candidate])
        // Unsubscribing "a", answered on the old socket, unanswered on the candidate: the
        // candidate's unsubscribe waits for its acknowledgement.
        #expect(machine.unsubscribe(key: "a") == [.send(old, .unsubscribe(id: "t-1"))])
        #expect(machine.received(.subscribeSuccess(id: ids["a"] ?? ""), on: candidate, at: at(hour), random: &random)
            == [.send(candidate, .unsubscribe(id: ids["a"] ?? ""))])
    }

    @Test("losing the current connection during a replacement drops the candidate and reconnects as usual")
    func currentLost() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.current
        let (candidate, _) = startReplacement(&machine, at: hour, random: &random)
        let actions = machine.closed(old, close: WebSocketClose(code: .abnormalClosure), error: nil, at: at(hour), random: &random)
        #expect(actions.first == .close(candidate, code: .normalClosure, reason: ""))
        #expect(actions.last == .report(.connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(2)))))
        #expect(machine.candidate == nil, "the candidate is forgotten (the driver closes it should it open later)")
    }

    @Test("a subscription first answered on the new socket is reported established at the switch")
    func establishedAtPromotion() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        let both = subscribes(machine.subscribe(key: "c", channel: "/ns/c"))
        let cOnCandidate = both["c"]?.id ?? ""
        _ = machine.received(.subscribeSuccess(id: ids["a"] ?? ""), on: candidate, at: at(hour), random: &random)
        let switched = machine.received(.subscribeSuccess(id: cOnCandidate), on: candidate, at: at(hour), random: &random)
        #expect(switched.contains(.report(.subscriptionEstablished("c"))), "\(switched)")
        #expect(!switched.contains(.report(.subscriptionEstablished("a"))), "a was established before")
    }

    @Test("no credentials for a subscribe: on the candidate the replacement is retried, on the current socket that subscription ends")
    func subscribeNotSent() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let (candidate, _) = startReplacement(&machine, at: hour, random: &random)
        let failure = SwitchboardError(code: .sessionExpired, message: "no token")
        let abandoned = machine.subscribeNotSent(key: "a", on: candidate, failure, at: at(hour))
        #expect(abandoned.first == .close(candidate, code: .normalClosure, reason: ""))
        #expect(machine.candidate == nil, "the candidate is forgotten (the driver closes it should it open later)")
        let sent = subscribes(machine.subscribe(key: "b", channel: "/ns/b"))
        #expect(machine.subscribeNotSent(key: "b", on: machine.current, failure, at: at(hour))
            == [.report(.subscriptionFailed("b", failure))])
        let late = machine.received(.subscribeSuccess(id: sent["b"]?.id ?? ""), on: machine.current, at: at(hour), random: &random)
        #expect(late.isEmpty, "b is gone")
    }

    @Test("a candidate that never gets all its answers is given up after the subscribe timeout")
    func candidateSubscribeTimeout() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let (candidate, _) = startReplacement(&machine, at: hour, random: &random)
        #expect(machine.nextDeadline == at(hour + 30))
        #expect(machine.timerFired(at: at(hour + 29), random: &random).isEmpty)
        #expect(machine.timerFired(at: at(hour + 30), random: &random).first == .close(candidate, code: .normalClosure, reason: ""))
    }

    @Test("after a candidate's credentials were refused, the next one asks for fresh ones")
    func refreshAfterRefusedCandidate() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        guard case .openReplacement(let first, .connect)? = machine.timerFired(at: at(hour), random: &random).first else {
            Issue.record("no replacement")
            return
        }
        _ = machine.openFailed(
            first, ConnectFailure(SwitchboardError(code: .network, message: "401"), isAuthorization: true), at: at(hour), random: &random)
        let retry = machine.timerFired(at: at(hour + 60), random: &random)
        guard case .openReplacement(_, let reason)? = retry.first else {
            Issue.record("no retry: \(retry)")
            return
        }
        #expect(reason == .refreshAfterRejection)
    }

    @Test("without a lifetime a connection is never replaced")
    func noLifetime() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine(ackTimeout: .seconds(5), policy: .standard, idPrefix: "t")
        _ = machine.connect()
        _ = machine.opened(machine.current, at: at(0))
        _ = machine.received(.connectionAck(connectionTimeoutMs: 86_400_000), on: machine.current, at: at(0), random: &random)
        #expect(machine.nextDeadline == at(86_400))
        #expect(machine.timerFired(at: at(23 * hour), random: &random).isEmpty)
    }
}

@Suite("AppSync publish over the socket (state machine)")
struct AppSyncPublishMachineTests {
    @Test("a publish is sent on the connection and answered with the server's per-event result")
    func answered() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let (id, actions) = machine.publish(channel: "/ns/a", events: ["{}", "[]"], timeout: .seconds(10), at: at(1))
        #expect(actions == [.send(machine.current, .publish(id: id, channel: "/ns/a", events: ["{}", "[]"]))])
        let result = AppSyncPublishResult(
            accepted: [.init(identifier: "x", index: 0)], refused: [.init(identifier: "y", index: 1, code: "EventTooLargeException", message: "big")])
        #expect(machine.received(.publishSuccess(id: id, result), on: machine.current, at: at(2), random: &random)
            == [.transport(.completePublish(id: id, .success(result)))])
        #expect(machine.nextDeadline == at(hour), "no publish deadline is left")
    }

    @Test("publish_error, and an error frame with the publish's id, refuse it; unauthorized means sessionExpired")
    func refused() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let first = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(1)).id
        let second = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(1)).id
        let rejected = machine.received(
            .publishError(id: first, [AppSyncError(errorType: "InvalidInputError", message: "input exceeded 5 event limit")]),
            on: machine.current, at: at(2), random: &random)
        guard case .transport(.completePublish(first, .failure(let error)))? = rejected.first else {
            Issue.record("not refused: \(rejected)")
            return
        }
        #expect(error.code == .publishRejected && error.message.contains("InvalidInputError"))
        let unauthorized = machine.received(
            .error(id: second, [AppSyncError(errorType: "UnauthorizedException")]), on: machine.current, at: at(2), random: &random)
        guard case .transport(.completePublish(second, .failure(let denied)))? = unauthorized.first else {
            Issue.record("not refused: \(unauthorized)")
            return
        }
        #expect(denied.code == .sessionExpired)
    }

    @Test("a publish made while connecting waits for the acknowledged connection")
    func queuedUntilConnected() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = Machine(ackTimeout: .seconds(5), policy: .standard, idPrefix: "t")
        _ = machine.connect()
        let (id, actions) = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(0))
        #expect(actions.isEmpty)
        _ = machine.opened(machine.current, at: at(1))
        let acked = machine.received(.connectionAck(connectionTimeoutMs: nil), on: machine.current, at: at(1), random: &random)
        #expect(acked.last == .send(machine.current, .publish(id: id, channel: "/ns/a", events: ["{}"])))
    }

    @Test("connecting as another identity fails the publishes of the previous one")
    func identityChange() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let sent = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(1)).id
        let actions = machine.connect()
        #expect(actions.contains { if case .transport(.completePublish(sent, .failure(let error))) = $0 { error.code == .network } else { false } })
    }

    @Test("subscribing again while the unsubscribe waits for the acknowledgement keeps the subscription")
    func resubscribeBeforeAck() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let id = subscribes(machine.subscribe(key: "a", channel: "/ns/a"))["a"]?.id ?? ""
        #expect(machine.unsubscribe(key: "a").isEmpty)
        #expect(machine.subscribe(key: "a", channel: "/ns/a").isEmpty, "the pending subscribe serves it")
        #expect(machine.received(.subscribeSuccess(id: id), on: machine.current, at: at(1), random: &random)
            == [.report(.subscriptionEstablished("a"))])
    }

    @Test("no answer in time is a timeout; a lost connection fails what was sent; signed out fails at once")
    func failures() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let slow = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(0)).id
        #expect(machine.nextDeadline == at(10))
        guard case .transport(.completePublish(slow, .failure(let timeout)))? = machine.timerFired(at: at(10), random: &random).first else {
            Issue.record("no timeout")
            return
        }
        #expect(timeout.code == .timeout)
        let lost = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(11)).id
        let closed = machine.closed(machine.current, close: nil, error: nil, at: at(12), random: &random)
        #expect(closed.contains { if case .transport(.completePublish(lost, .failure(let error))) = $0 { error.code == .network } else { false } })
        _ = machine.disconnect()
        let (id, actions) = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(13))
        #expect(actions.count == 1)
        guard case .transport(.completePublish(id, .failure(let error)))? = actions.first else {
            Issue.record("not failed: \(actions)")
            return
        }
        #expect(error.code == .network)
    }
}
