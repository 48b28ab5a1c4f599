import SwitchboardCore
import SwitchboardTesting
import Testing

@testable import SwitchboardAppSync

private typealias Machine = AppSyncConnectionMachine<ManualClock.Instant>
private typealias Action = Machine.Action

private func at(_ seconds: Double) -> ManualClock.Instant { ManualClock.Instant(offset: .milliseconds(Int64(seconds * 1000))) }

private let hour = 3600.0

/// A machine with a one-hour connection lifetime, connected at t = 0 (keep-alive timeout one
/// day, so only the lifetime matters), holding `keys`, acknowledged.
private func connected(_ keys: [SubscriptionKey], random: inout SeededRandomNumberGenerator) -> Machine {
    var machine = Machine(
        ackTimeout: .seconds(5), policy: .fixedDelay(.seconds(2)), idPrefix: "t", connectionLifetime: .seconds(3600),
        replacementRetryDelay: .seconds(60))
    _ = machine.connect()
    _ = machine.opened(generation: machine.generation, at: at(0))
    _ = machine.received(.connectionAck(connectionTimeoutMs: 86_400_000), generation: machine.generation, at: at(0), random: &random)
    for key in keys {
        for case .sendSubscribe(_, _, let id, _) in machine.subscribe(key: key, channel: "/ns/\(key)") {
            _ = machine.received(.subscribeSuccess(id: id), generation: machine.generation, at: at(0), random: &random)
        }
    }
    return machine
}

private func subscribes(_ actions: [Action]) -> [SubscriptionKey: (generation: Int, id: String)] {
    var found: [SubscriptionKey: (generation: Int, id: String)] = [:]
    for case .sendSubscribe(let generation, let key, let id, _) in actions { found[key] = (generation, id) }
    return found
}

/// Starts the replacement at the lifetime: returns the candidate's generation and its
/// subscribe ids, with the candidate acknowledged but no subscription answered yet.
private func startReplacement(
    _ machine: inout Machine, at time: Double, random: inout SeededRandomNumberGenerator
) -> (generation: Int, ids: [SubscriptionKey: String]) {
    let due = machine.timerFired(at: at(time), random: &random)
    guard case .openReplacement(let candidate, _)? = due.first else {
        Issue.record("no replacement opened: \(due)")
        return (0, [:])
    }
    #expect(machine.opened(generation: candidate, at: at(time)) == [.sendInit(generation: candidate)])
    let acked = machine.received(.connectionAck(connectionTimeoutMs: 86_400_000), generation: candidate, at: at(time), random: &random)
    return (candidate, subscribes(acked).mapValues(\.id))
}

@Suite("AppSync connection replacement before the 24 h limit")
struct AppSyncRotationMachineTests {
    @Test("at the lifetime a second socket opens while the first keeps delivering")
    func opensBesideTheCurrent() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let current = machine.generation
        #expect(machine.nextDeadline == at(hour), "the lifetime is the next deadline")
        #expect(machine.timerFired(at: at(hour - 1), random: &random).isEmpty)
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        #expect(candidate != current && machine.generation == current, "the current connection stays current")
        #expect(Set(ids.keys) == ["a"])
        #expect(ids["a"] != "t-1", "a fresh id on the new socket")
        // The old socket still delivers, and nothing says the connection changed.
        #expect(machine.received(.data(id: "t-1", events: ["{\"n\":1}"]), generation: current, at: at(hour), random: &random)
            == [.deliver(key: "a", events: ["{\"n\":1}"])])
    }

    @Test("the old socket closes only after every subscription is answered on the new one")
    func makeBeforeBreak() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a", "b"], random: &random)
        let old = machine.generation
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        #expect(machine.received(.subscribeSuccess(id: ids["a"] ?? ""), generation: candidate, at: at(hour), random: &random).isEmpty,
            "b is still unanswered: no switch yet")
        let switched = machine.received(.subscribeSuccess(id: ids["b"] ?? ""), generation: candidate, at: at(hour + 1), random: &random)
        #expect(switched == [.replaced(from: old, to: candidate), .close(generation: old, code: .normalClosure)])
        #expect(machine.generation == candidate)
        #expect(!switched.contains { if case .emit = $0 { true } else { false } }, "consumers see no state change and no re-establishment")
        #expect(machine.nextDeadline == at(2 * hour + 1), "the next replacement is one lifetime after the switch")
    }

    @Test("during the overlap each event is delivered once and in publish order, however the two sockets interleave")
    func onceAndInOrder() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.generation
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        let newID = ids["a"] ?? ""
        _ = machine.received(.subscribeSuccess(id: newID), generation: candidate, at: at(hour), random: &random)
        // e1 was published before the new subscription existed (old socket only); e2…e4 went to
        // both. The new socket is faster: its e2, e3 arrive before the old socket's e1.
        #expect(machine.received(.data(id: newID, events: ["e2", "e3"]), generation: candidate, at: at(hour), random: &random).isEmpty,
            "held until the old socket has closed")
        #expect(machine.received(.data(id: "t-1", events: ["e1", "e2"]), generation: old, at: at(hour), random: &random)
            == [.deliver(key: "a", events: ["e1", "e2"])])
        // Identical texts on one socket are separate events.
        #expect(machine.received(.data(id: "t-1", events: ["e3", "e3"]), generation: old, at: at(hour), random: &random)
            == [.deliver(key: "a", events: ["e3", "e3"])])
        #expect(machine.received(.data(id: newID, events: ["e4"]), generation: candidate, at: at(hour), random: &random).isEmpty)
        // The old socket closes: what only the new one carried (e4) follows, once.
        #expect(machine.closed(generation: old, close: WebSocketClose(code: .normalClosure), error: nil, at: at(hour + 1), random: &random)
            == [.deliver(key: "a", events: ["e4"])])
        // The new socket's late copy of the second e3 is still recognised during the grace period.
        #expect(machine.received(.data(id: newID, events: ["e3", "e5"]), generation: candidate, at: at(hour + 2), random: &random)
            == [.deliver(key: "a", events: ["e5"])])
        // After the grace period nothing is held back any more.
        #expect(machine.nextDeadline == at(hour + 11))
        _ = machine.timerFired(at: at(hour + 11), random: &random)
        #expect(machine.received(.data(id: newID, events: ["e1"]), generation: candidate, at: at(hour + 12), random: &random)
            == [.deliver(key: "a", events: ["e1"])])
    }

    @Test("while two sockets overlap, events published before the switch still arrive from the old one")
    func drainsTheOldSocket() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.generation
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        _ = machine.received(.subscribeSuccess(id: ids["a"] ?? ""), generation: candidate, at: at(hour), random: &random)
        // After the switch, a frame the old socket sent before its close still counts.
        #expect(machine.received(.data(id: "t-1", events: ["late"]), generation: old, at: at(hour), random: &random)
            == [.deliver(key: "a", events: ["late"])])
        #expect(machine.received(.data(id: ids["a"] ?? "", events: ["late"]), generation: candidate, at: at(hour), random: &random).isEmpty)
    }

    @Test("a refused or silent candidate leaves the current connection in place and is retried")
    func failedReplacement() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let current = machine.generation
        guard case .openReplacement(let first, _)? = machine.timerFired(at: at(hour), random: &random).first else {
            Issue.record("no replacement")
            return
        }
        let refused = machine.openFailed(
            generation: first, error: SwitchboardError(code: .network, message: "refused"), authorization: false, at: at(hour), random: &random)
        #expect(refused.count == 1)
        guard case .emit(.error(let error))? = refused.first else {
            Issue.record("no error reported: \(refused)")
            return
        }
        #expect(error.code == .network && error.message.contains("trying again"))
        #expect(machine.generation == current)
        #expect(machine.received(.data(id: "t-1", events: ["x"]), generation: current, at: at(hour), random: &random) == [.deliver(key: "a", events: ["x"])])
        #expect(machine.nextDeadline == at(hour + 60))
        // The retry's socket opens but never acknowledges: given up after the ack timeout.
        guard case .openReplacement(let second, _)? = machine.timerFired(at: at(hour + 60), random: &random).first else {
            Issue.record("no retry")
            return
        }
        _ = machine.opened(generation: second, at: at(hour + 60))
        let late = machine.timerFired(at: at(hour + 65), random: &random)
        #expect(late.first == .close(generation: second, code: .normalClosure))
        let lateError: SwitchboardError? = late.lazy.compactMap { if case .emit(.error(let error)) = $0 { error } else { nil } }.first
        #expect(lateError?.code == .network)
        #expect((lateError?.cause as? SwitchboardError)?.message == "connection-ack timeout: no connection_ack within 5 s")
        #expect(machine.generation == current)
    }

    @Test("a subscription refused on the new socket ends, and the rest switch over")
    func refusedOnCandidate() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a", "b"], random: &random)
        let old = machine.generation
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        _ = machine.received(.subscribeSuccess(id: ids["a"] ?? ""), generation: candidate, at: at(hour), random: &random)
        let actions = machine.received(
            .subscribeError(id: ids["b"], [AppSyncError(errorType: "Unauthorized")]), generation: candidate, at: at(hour), random: &random)
        #expect(actions.contains(.sendUnsubscribe(generation: old, id: "t-2")))
        #expect(actions.contains { if case .emit(.subscriptionFailed("b", let error)) = $0 { error.code == .subscriptionRejected } else { false } })
        #expect(actions.contains(.replaced(from: old, to: candidate)))
    }

    @Test("subscribing and unsubscribing during a replacement reach both sockets")
    func changesDuringReplacement() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.generation
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        // A new subscription goes to the current socket and to the candidate.
        let both = machine.subscribe(key: "d", channel: "/ns/d")
        #expect(Set(both.compactMap { if case .sendSubscribe(let generation, "d", _, _) = $0 { generation } else { nil } }) == [old, candidate])
        // Unsubscribing "a", answered on the old socket, unanswered on the candidate: the
        // candidate's unsubscribe waits for its acknowledgement.
        #expect(machine.unsubscribe(key: "a") == [.sendUnsubscribe(generation: old, id: "t-1")])
        #expect(machine.received(.subscribeSuccess(id: ids["a"] ?? ""), generation: candidate, at: at(hour), random: &random)
            == [.sendUnsubscribe(generation: candidate, id: ids["a"] ?? "")])
    }

    @Test("losing the current connection during a replacement drops the candidate and reconnects as usual")
    func currentLost() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let old = machine.generation
        let (candidate, _) = startReplacement(&machine, at: hour, random: &random)
        let actions = machine.closed(generation: old, close: WebSocketClose(code: .abnormalClosure), error: nil, at: at(hour), random: &random)
        #expect(actions.first == .close(generation: candidate, code: .normalClosure))
        #expect(actions.last == .emit(.connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(2)))))
        #expect(!machine.wants(generation: candidate))
    }

    @Test("a subscription first answered on the new socket is reported established at the switch")
    func establishedAtPromotion() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let (candidate, ids) = startReplacement(&machine, at: hour, random: &random)
        let both = subscribes(machine.subscribe(key: "c", channel: "/ns/c"))
        let cOnCandidate = both["c"]?.id ?? ""
        _ = machine.received(.subscribeSuccess(id: ids["a"] ?? ""), generation: candidate, at: at(hour), random: &random)
        let switched = machine.received(.subscribeSuccess(id: cOnCandidate), generation: candidate, at: at(hour), random: &random)
        #expect(switched.contains(.emit(.subscriptionEstablished("c"))), "\(switched)")
        #expect(!switched.contains(.emit(.subscriptionEstablished("a"))), "a was established before")
    }

    @Test("no credentials for a subscribe: on the candidate the replacement is retried, on the current socket that subscription ends")
    func subscribeNotSent() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let (candidate, _) = startReplacement(&machine, at: hour, random: &random)
        let failure = SwitchboardError(code: .sessionExpired, message: "no token")
        let abandoned = machine.subscribeNotSent(key: "a", generation: candidate, failure, at: at(hour))
        #expect(abandoned.first == .close(generation: candidate, code: .normalClosure))
        #expect(!machine.wants(generation: candidate))
        let sent = subscribes(machine.subscribe(key: "b", channel: "/ns/b"))
        #expect(machine.subscribeNotSent(key: "b", generation: machine.generation, failure, at: at(hour))
            == [.emit(.subscriptionFailed("b", failure))])
        let late = machine.received(.subscribeSuccess(id: sent["b"]?.id ?? ""), generation: machine.generation, at: at(hour), random: &random)
        #expect(late.isEmpty, "b is gone")
    }

    @Test("a candidate that never gets all its answers is given up after the subscribe timeout")
    func candidateSubscribeTimeout() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected(["a"], random: &random)
        let (candidate, _) = startReplacement(&machine, at: hour, random: &random)
        #expect(machine.nextDeadline == at(hour + 30))
        #expect(machine.timerFired(at: at(hour + 29), random: &random).isEmpty)
        #expect(machine.timerFired(at: at(hour + 30), random: &random).first == .close(generation: candidate, code: .normalClosure))
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
            generation: first, error: SwitchboardError(code: .network, message: "401"), authorization: true, at: at(hour), random: &random)
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
        _ = machine.opened(generation: machine.generation, at: at(0))
        _ = machine.received(.connectionAck(connectionTimeoutMs: 86_400_000), generation: machine.generation, at: at(0), random: &random)
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
        #expect(actions == [.sendPublish(generation: machine.generation, id: id, channel: "/ns/a", events: ["{}", "[]"])])
        let result = AppSyncPublishResult(
            accepted: [.init(identifier: "x", index: 0)], refused: [.init(identifier: "y", index: 1, code: "EventTooLargeException", message: "big")])
        #expect(machine.received(.publishSuccess(id: id, result), generation: machine.generation, at: at(2), random: &random)
            == [.completePublish(id: id, .success(result))])
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
            generation: machine.generation, at: at(2), random: &random)
        guard case .completePublish(first, .failure(let error))? = rejected.first else {
            Issue.record("not refused: \(rejected)")
            return
        }
        #expect(error.code == .publishRejected && error.message.contains("InvalidInputError"))
        let unauthorized = machine.received(
            .error(id: second, [AppSyncError(errorType: "UnauthorizedException")]), generation: machine.generation, at: at(2), random: &random)
        guard case .completePublish(second, .failure(let denied))? = unauthorized.first else {
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
        _ = machine.opened(generation: machine.generation, at: at(1))
        let acked = machine.received(.connectionAck(connectionTimeoutMs: nil), generation: machine.generation, at: at(1), random: &random)
        #expect(acked.last == .sendPublish(generation: machine.generation, id: id, channel: "/ns/a", events: ["{}"]))
    }

    @Test("connecting as another identity fails the publishes of the previous one")
    func identityChange() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let sent = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(1)).id
        let actions = machine.connect()
        #expect(actions.contains { if case .completePublish(sent, .failure(let error)) = $0 { error.code == .network } else { false } })
    }

    @Test("subscribing again while the unsubscribe waits for the acknowledgement keeps the subscription")
    func resubscribeBeforeAck() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let id = subscribes(machine.subscribe(key: "a", channel: "/ns/a"))["a"]?.id ?? ""
        #expect(machine.unsubscribe(key: "a").isEmpty)
        #expect(machine.subscribe(key: "a", channel: "/ns/a").isEmpty, "the pending subscribe serves it")
        #expect(machine.received(.subscribeSuccess(id: id), generation: machine.generation, at: at(1), random: &random)
            == [.emit(.subscriptionEstablished("a"))])
    }

    @Test("no answer in time is a timeout; a lost connection fails what was sent; signed out fails at once")
    func failures() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var machine = connected([], random: &random)
        let slow = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(0)).id
        #expect(machine.nextDeadline == at(10))
        guard case .completePublish(slow, .failure(let timeout))? = machine.timerFired(at: at(10), random: &random).first else {
            Issue.record("no timeout")
            return
        }
        #expect(timeout.code == .timeout)
        let lost = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(11)).id
        let closed = machine.closed(generation: machine.generation, close: nil, error: nil, at: at(12), random: &random)
        #expect(closed.contains { if case .completePublish(lost, .failure(let error)) = $0 { error.code == .network } else { false } })
        _ = machine.disconnect()
        let (id, actions) = machine.publish(channel: "/ns/a", events: ["{}"], timeout: .seconds(10), at: at(13))
        #expect(actions.count == 1)
        guard case .completePublish(id, .failure(let error))? = actions.first else {
            Issue.record("not failed: \(actions)")
            return
        }
        #expect(error.code == .network)
    }
}
