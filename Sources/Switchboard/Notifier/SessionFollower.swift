import SwitchboardCore

/// Who the notifier connects as, and whether a change of connection is a gap in which events may
/// have been missed, as a plain value: the notifier tells it of session updates, connection
/// states and switches of transport, and carries out what it answers.
struct SessionFollower {
    /// What a session update asks of the notifier (outside a switch of transport).
    enum Step: Equatable {
        /// Nothing: signed out while signed out.
        case none
        /// Signed out: drop the subscriptions and disconnect.
        case signOut
        /// The same user and organization again, as an auth layer sends on every token refresh:
        /// keep the connection (connect again only if the transport stopped) and replan.
        case refresh
        /// Another user or organization: drop the subscriptions, connect as the new identity and
        /// subscribe again.
        case change
        /// Signed in: connect and subscribe.
        case signIn
    }

    /// What a session update asks of the notifier while a switch of transport waits for the old
    /// transport to stop: nothing is sent to either transport.
    enum StepDuringSwitch: Equatable {
        /// Signed out: the connection state becomes idle.
        case signOut
        /// Signed in; `first` when nobody was signed in before, so the connection state becomes
        /// connecting (over the next transport).
        case signIn(first: Bool)
    }

    /// The signed-in identity, as the session gave it.
    private(set) var identity: TransportIdentity?
    /// Why events may have been missed since delivery last stopped; handed over once connected
    /// again.
    private(set) var pendingGap: BackendNotifier.DeliveryGap?
    /// The notifier itself asked for the next change of connection (sign-out, another identity),
    /// so leaving `connected` is not a gap.
    private(set) var connectionResetRequested = false

    /// Someone is signed in.
    var isSignedIn: Bool { identity != nil }

    /// Follows a session update outside a switch of transport.
    mutating func follow(_ session: Session) -> Step {
        switch session {
        case .signedOut:
            guard identity != nil else { return .none }
            identity = nil
            pendingGap = nil
            connectionResetRequested = true
            return .signOut
        case .signedIn(let next):
            let step: Step
            if let current = identity, current.userId == next.userId, current.orgId == next.orgId {
                step = .refresh
            } else if identity != nil {
                pendingGap = nil
                connectionResetRequested = true
                step = .change
            } else {
                step = .signIn
            }
            identity = next
            return step
        }
    }

    /// Follows a session update while a switch of transport is pending.
    mutating func followDuringSwitch(_ session: Session) -> StepDuringSwitch {
        switch session {
        case .signedOut:
            identity = nil
            pendingGap = nil
            return .signOut
        case .signedIn(let next):
            let first = identity == nil
            identity = next
            return .signIn(first: first)
        }
    }

    /// The connection state went from `previous` to `state`. Leaving `connected` unasked while
    /// signed in opens a gap; on `connected`, returns the gap delivery resumes after (nil for a
    /// first connection or one the notifier asked for) and forgets it.
    mutating func connectionChanged(from previous: ConnectionState, to state: ConnectionState) -> BackendNotifier.DeliveryGap? {
        if previous == .connected, state != .connected, identity != nil, !connectionResetRequested {
            pendingGap = pendingGap ?? .reconnected
        }
        guard state == .connected else { return nil }
        connectionResetRequested = false
        defer { pendingGap = nil }
        return pendingGap
    }

    /// A switch of transport began; returns whether someone is signed in, whose connection is
    /// then being made again over the new transport (a gap until it is up).
    mutating func switchBegan(from: TransportKind, to: TransportKind) -> Bool {
        guard identity != nil else { return false }
        pendingGap = .transportSwitched(from: from, to: to)
        connectionResetRequested = false
        return true
    }
}
