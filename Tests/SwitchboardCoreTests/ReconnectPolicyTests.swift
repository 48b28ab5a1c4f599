import SwitchboardCore
import SwitchboardTesting
import Testing

typealias Disconnect = ReconnectPolicy.Disconnect

private let abnormal = Disconnect(.closed(WebSocketClose(code: .abnormalClosure)), isSignedIn: true)
private let networkFailure = Disconnect(
    .failed(SwitchboardError(code: .network, message: "connection reset")), isSignedIn: true)

@Suite("ReconnectPolicy")
struct ReconnectPolicyTests {
    @Test("standard: 10 s after an abnormal close or a failure, at any attempt", arguments: [1, 2, 7, 1000])
    func standardReconnectsAfterTenSeconds(attempt: Int) {
        var random = SeededRandomNumberGenerator(seed: 1)
        #expect(ReconnectPolicy.standard.decision(for: abnormal, attempt: attempt, using: &random)
            == .reconnect(after: .seconds(10)))
        #expect(ReconnectPolicy.standard.decision(for: networkFailure, attempt: attempt, using: &random)
            == .reconnect(after: .seconds(10)))
    }

    @Test("a normal close is not retried by default", arguments: [
        Disconnect(.requested, isSignedIn: true),
        Disconnect(.closed(WebSocketClose(code: .normalClosure, reason: "bye")), isSignedIn: true),
    ])
    func normalCloseStops(disconnect: Disconnect) {
        var random = SeededRandomNumberGenerator(seed: 1)
        #expect(disconnect.isNormal)
        guard case .stop(let reason) = ReconnectPolicy.standard.decision(for: disconnect, attempt: 1, using: &random)
        else {
            Issue.record("expected stop")
            return
        }
        #expect(reason.hasPrefix("normal close"))
    }

    @Test("a close code other than 1000 is abnormal; a failure is never normal", arguments: [
        WebSocketCloseCode.goingAway, .protocolError, .abnormalClosure, .internalError, WebSocketCloseCode(4000),
    ])
    func closeClassification(code: WebSocketCloseCode) {
        #expect(!Disconnect(.closed(WebSocketClose(code: code)), isSignedIn: true).isNormal)
        #expect(!networkFailure.isNormal)
    }

    @Test("a transport may classify an AppSync 1000 close it did not ask for as abnormal")
    func explicitClassificationOverrides() {
        var random = SeededRandomNumberGenerator(seed: 1)
        let appSyncClose = Disconnect(
            .closed(WebSocketClose(code: .normalClosure)), isSignedIn: true, isNormal: false)
        #expect(ReconnectPolicy.standard.decision(for: appSyncClose, attempt: 1, using: &random)
            == .reconnect(after: .seconds(10)))
    }

    @Test("reconnectAfterNormalClose retries a normal close")
    func reconnectAfterNormalClose() {
        var random = SeededRandomNumberGenerator(seed: 1)
        var policy = ReconnectPolicy.standard
        policy.reconnectAfterNormalClose = true
        #expect(policy.decision(for: Disconnect(.requested, isSignedIn: true), attempt: 1, using: &random)
            == .reconnect(after: .seconds(10)))
        let fixed = ReconnectPolicy.fixedDelay(.seconds(3), reconnectAfterNormalClose: true)
        #expect(fixed.decision(for: Disconnect(.requested, isSignedIn: true), attempt: 1, using: &random)
            == .reconnect(after: .seconds(3)))
    }

    @Test("no policy reconnects while signed out", arguments: [
        ReconnectPolicy.standard, .fixedDelay(.seconds(1)), .exponentialBackoff(), .never,
        .fixedDelay(.seconds(1), reconnectAfterNormalClose: true),
    ])
    func signedOutStops(policy: ReconnectPolicy) {
        var random = SeededRandomNumberGenerator(seed: 1)
        var signedOut = abnormal
        signedOut.isSignedIn = false
        #expect(policy.decision(for: signedOut, attempt: 1, using: &random) == .stop(reason: "signed out"))
    }

    @Test("an expired session stops instead of looping", arguments: [
        ReconnectPolicy.standard, .fixedDelay(.seconds(1), reconnectAfterNormalClose: true), .exponentialBackoff(),
    ])
    func sessionExpiredStops(policy: ReconnectPolicy) {
        var random = SeededRandomNumberGenerator(seed: 1)
        let expired = Disconnect(
            .failed(SwitchboardError(code: .sessionExpired, message: "401 Unauthorized")), isSignedIn: true)
        #expect(policy.decision(for: expired, attempt: 1, using: &random)
            == .stop(reason: "session expired: 401 Unauthorized"))
    }

    @Test("never stops on every disconnect")
    func neverStops() {
        var random = SeededRandomNumberGenerator(seed: 1)
        #expect(ReconnectPolicy.never.decision(for: abnormal, attempt: 1, using: &random)
            == .stop(reason: "the policy never reconnects"))
    }

    @Test("fixedDelay retries maxAttempts times, then gives up")
    func fixedDelayMaxAttempts() {
        var random = SeededRandomNumberGenerator(seed: 1)
        let policy = ReconnectPolicy.fixedDelay(.milliseconds(250), maxAttempts: 3)
        for attempt in 1...3 {
            #expect(policy.decision(for: abnormal, attempt: attempt, using: &random)
                == .reconnect(after: .milliseconds(250)))
        }
        #expect(policy.decision(for: abnormal, attempt: 4, using: &random) == .stop(reason: "gave up after 3 attempts"))
        #expect(ReconnectPolicy.fixedDelay(.seconds(1), maxAttempts: 0).decision(for: abnormal, attempt: 1, using: &random)
            == .stop(reason: "gave up after 0 attempts"))
    }

    @Test("exponential full jitter stays within [0, min(max, initial·2ⁿ⁻¹)]", arguments: [UInt64(1), 42, 9_999])
    func exponentialJitterWithinCap(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)
        let policy = ReconnectPolicy.exponentialBackoff(
            initialDelay: .milliseconds(100), maximumDelay: .seconds(30), multiplier: 2)
        var sawNonZero = false
        for attempt in 1...200 {
            for _ in 0..<20 {
                guard case .reconnect(let delay) = policy.decision(for: abnormal, attempt: attempt, using: &random)
                else {
                    Issue.record("expected reconnect at attempt \(attempt)")
                    return
                }
                let exponent = min(attempt - 1, 20)
                let cap = min(Duration.seconds(30), .milliseconds(100) * (1 << exponent))
                #expect(delay >= .zero && delay <= cap, "attempt \(attempt): \(delay) outside [0, \(cap)]")
                sawNonZero = sawNonZero || delay > .zero
            }
        }
        #expect(sawNonZero)
    }

    @Test("exponential jitter is deterministic for a seed and differs between seeds")
    func exponentialDeterministic() {
        let policy = ReconnectPolicy.exponentialBackoff()
        func delays(seed: UInt64) -> [ReconnectDecision] {
            var random = SeededRandomNumberGenerator(seed: seed)
            return (1...10).map { policy.decision(for: abnormal, attempt: $0, using: &random) }
        }
        #expect(delays(seed: 7) == delays(seed: 7))
        #expect(delays(seed: 7) != delays(seed: 8))
    }

    @Test("exponential caps reach the maximum, and a draw of all ones gives exactly the cap")
    func exponentialReachesMaximum() {
        var ones = ConstantGenerator(value: .max)
        var zeros = ConstantGenerator(value: 0)
        let policy = ReconnectPolicy.exponentialBackoff(
            initialDelay: .seconds(1), maximumDelay: .seconds(60), multiplier: 2)
        let expected: [Duration] = [1, 2, 4, 8, 16, 32, 60, 60].map { .seconds($0) }
        for (index, cap) in expected.enumerated() {
            #expect(policy.decision(for: abnormal, attempt: index + 1, using: &ones) == .reconnect(after: cap))
            #expect(policy.decision(for: abnormal, attempt: index + 1, using: &zeros) == .reconnect(after: .zero))
        }
        #expect(policy.decision(for: abnormal, attempt: Int.max, using: &ones) == .reconnect(after: .seconds(60)))
    }

    @Test("exponential backoff honours maxAttempts")
    func exponentialMaxAttempts() {
        var random = SeededRandomNumberGenerator(seed: 3)
        let policy = ReconnectPolicy.exponentialBackoff(maxAttempts: 2)
        #expect(policy.decision(for: abnormal, attempt: 2, using: &random) != .stop(reason: "gave up after 2 attempts"))
        #expect(policy.decision(for: abnormal, attempt: 3, using: &random) == .stop(reason: "gave up after 2 attempts"))
    }
}

/// Returns the same value on every draw, to pin the jitter to its bounds.
private struct ConstantGenerator: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}
