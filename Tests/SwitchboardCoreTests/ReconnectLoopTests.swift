import SwitchboardCore
import SwitchboardTesting
import Testing

/// A reconnect loop of the shape a transport runs: each connection ends with the next scripted
/// disconnect; the policy decides; the loop sleeps on the injected clock and tries again.
private func reconnectLoop(
    policy: ReconnectPolicy,
    clock: any Clock<Duration>,
    disconnects: [ReconnectPolicy.Disconnect],
    connections: LockedValue<Int>
) async throws -> String {
    var random = SeededRandomNumberGenerator(seed: 1)
    for (index, disconnect) in disconnects.enumerated() {
        connections.withLock { $0 += 1 }
        switch policy.decision(for: disconnect, attempt: index + 1, using: &random) {
        case .reconnect(let delay): try await clock.sleep(for: delay)
        case .stop(let reason): return reason
        }
    }
    return "script exhausted"
}

@Suite("Reconnect loop on a ManualClock")
struct ReconnectLoopTests {
    @Test("the standard policy waits exactly 10 s between attempts, then stops on a normal close")
    func standardLoop() async throws {
        let clock = ManualClock()
        let connections = LockedValue(0)
        let abnormal = ReconnectPolicy.Disconnect(.closed(WebSocketClose(code: .abnormalClosure)), isSignedIn: true)
        async let outcome = reconnectLoop(
            policy: .standard, clock: clock,
            disconnects: [abnormal, abnormal, .init(.requested, isSignedIn: true)],
            connections: connections)

        await clock.sleepers(atLeast: 1)
        #expect(connections.withLock { $0 } == 1)
        #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(10)))
        clock.advance(by: .seconds(10) - .milliseconds(1))
        #expect(clock.sleeperCount == 1, "woke before the 10 s delay")
        #expect(connections.withLock { $0 } == 1)

        clock.advance(by: .milliseconds(1))
        #expect(clock.sleeperCount == 0, "still asleep after the 10 s delay")
        await clock.sleepers(atLeast: 1)
        #expect(connections.withLock { $0 } == 2)
        #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(20)))

        clock.advance(by: .seconds(10))
        #expect(try await outcome == "normal close (requested by the client)")
        #expect(connections.withLock { $0 } == 3)
        #expect(clock.sleeperCount == 0)
    }

    @Test("exponential backoff sleeps for the drawn delay on the injected clock")
    func exponentialLoop() async throws {
        let clock = ManualClock()
        let connections = LockedValue(0)
        let lost = ReconnectPolicy.Disconnect(
            .failed(SwitchboardError(code: .timeout, message: "keep-alive")), isSignedIn: true)
        let policy = ReconnectPolicy.exponentialBackoff(maxAttempts: 1)
        var random = SeededRandomNumberGenerator(seed: 1)
        guard case .reconnect(let expected) = policy.decision(for: lost, attempt: 1, using: &random) else {
            Issue.record("expected a reconnect")
            return
        }
        async let outcome = reconnectLoop(
            policy: policy, clock: clock, disconnects: [lost, lost], connections: connections)

        await clock.sleepers(atLeast: 1)
        #expect(clock.nextDeadline == ManualClock.Instant(offset: expected))
        clock.advance(by: expected)
        #expect(try await outcome == "gave up after 1 attempts")
        #expect(connections.withLock { $0 } == 2)
    }
}
