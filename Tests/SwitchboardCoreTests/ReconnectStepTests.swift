import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("ReconnectStep: what both machines do after losing a connection")
struct ReconnectStepTests {
    private let failure = SwitchboardError(code: .network, message: "connection reset")

    @Test("a retried loss numbers the next connect after the lost one, reports the error, then the wait")
    func retried() {
        var random = SeededRandomNumberGenerator(seed: 1)
        let step = ReconnectStep.afterLoss(
            .failed(failure), isNormal: false, signedIn: true, attempt: 2, reported: failure, stopError: failure,
            policy: .fixedDelay(.seconds(3)), now: .seconds(100), random: &random)
        #expect(step.next == .reconnect(attempt: 3, until: .seconds(103)))
        #expect(step.reports == [.error(failure), .connectionStateChanged(.waitingToReconnect(attempt: 3, delay: .seconds(3)))])
    }

    @Test("a loss the client asked for reports only the wait")
    func requestedReportsNoError() {
        var random = SeededRandomNumberGenerator(seed: 1)
        let step = ReconnectStep.afterLoss(
            .requested, isNormal: false, signedIn: true, attempt: 0, reported: nil, stopError: nil,
            policy: .fixedDelay(.seconds(1)), now: .zero, random: &random)
        #expect(step.next == .reconnect(attempt: 1, until: .seconds(1)))
        #expect(step.reports == [.connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(1)))])
    }

    @Test("when the policy stops (signed out, attempts used up, a normal close), the cause is the stop error")
    func stops() {
        var random = SeededRandomNumberGenerator(seed: 1)
        let signedOut = ReconnectStep.afterLoss(
            .failed(failure), isNormal: false, signedIn: false, attempt: 0, reported: failure, stopError: failure,
            policy: .standard, now: .zero, random: &random)
        #expect(signedOut.next == .stop)
        #expect(signedOut.reports == [.connectionStateChanged(.disconnected(failure))])
        let usedUp = ReconnectStep.afterLoss(
            .failed(failure), isNormal: false, signedIn: true, attempt: 2, reported: failure, stopError: failure,
            policy: .fixedDelay(.seconds(1), maxAttempts: 2), now: .zero, random: &random)
        #expect(usedUp.next == .stop)
        let normal = ReconnectStep.afterLoss(
            .closed(WebSocketClose(code: .normalClosure)), isNormal: true, signedIn: true, attempt: 0, reported: failure,
            stopError: nil, policy: .standard, now: .zero, random: &random)
        #expect(normal.next == .stop)
        #expect(normal.reports == [.connectionStateChanged(.disconnected(nil))])
    }
}
