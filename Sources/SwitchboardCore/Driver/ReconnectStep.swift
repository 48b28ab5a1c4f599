/// What follows a lost connection, by the reconnect policy: the one place both transports'
/// machines (``ConnectionMachine``) number their attempts, ask the policy, and word what they
/// report. Each machine only moves its own phase to what the step says.
package struct ReconnectStep: Equatable, Sendable {
    /// Where the machine goes next.
    package enum Next: Equatable, Sendable {
        /// Wait until `until`, then connect as attempt `attempt`.
        case reconnect(attempt: Int, until: Duration)
        /// Stop: no further connection until the owner asks again.
        case stop
    }

    package var next: Next
    /// What to report, in order, after whatever the machine reports first.
    package var reports: [TransportEvent]

    /// The step after a connection that ended for `reason`.
    /// - Parameters:
    ///   - reason: Why it ended.
    ///   - isNormal: Whether the end was a normal close the client can accept as the session's end.
    ///   - signedIn: Whether a user is signed in (the policy never reconnects otherwise).
    ///   - attempt: The attempt the lost connection was (0 for one that had been acknowledged):
    ///     attempts count connects since the last acknowledged connection, so the connect that
    ///     follows is `attempt + 1`.
    ///   - reported: The error reported before waiting to reconnect (nil: none, as after a close
    ///     the client asked for). Every connection the client did not end itself is reported
    ///     before the retry, the same way on every transport.
    ///   - stopError: What the connection state reports as the cause when the policy stops.
    ///   - policy: The reconnect policy.
    ///   - now: The moment of the loss, on the machine's timeline.
    ///   - random: The jitter's source.
    package static func afterLoss(
        _ reason: ReconnectPolicy.Disconnect.Reason, isNormal: Bool, signedIn: Bool, attempt: Int,
        reported: SwitchboardError?, stopError: SwitchboardError?, policy: ReconnectPolicy, now: Duration,
        random: inout some RandomNumberGenerator
    ) -> ReconnectStep {
        let disconnect = ReconnectPolicy.Disconnect(reason, isSignedIn: signedIn, isNormal: isNormal)
        let next = attempt + 1
        switch policy.decision(for: disconnect, attempt: next, using: &random) {
        case .reconnect(let delay):
            let waiting = TransportEvent.connectionStateChanged(.waitingToReconnect(attempt: next, delay: delay))
            return ReconnectStep(next: .reconnect(attempt: next, until: now + delay), reports: (reported.map { [.error($0)] } ?? []) + [waiting])
        case .stop:
            return ReconnectStep(next: .stop, reports: [.connectionStateChanged(.disconnected(stopError))])
        }
    }
}
