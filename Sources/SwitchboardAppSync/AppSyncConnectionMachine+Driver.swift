import SwitchboardCore

/// The AppSync machine as the shared driver's ``/SwitchboardCore/ConnectionMachine``: the
/// commands the driver passes on in its own terms, and shutting down.
extension AppSyncConnectionMachine: ConnectionMachine {
    typealias ServerMessage = AppSyncServerMessage
    typealias ClientMessage = Outbound
    typealias Delivery = AppSyncEvents

    /// ``received(_:on:at:random:)``, into the driver's reused buffer: an event frame on the
    /// current socket appends its delivery without an array of its own.
    mutating func received(
        _ message: AppSyncServerMessage, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator,
        into actions: inout [Action]
    ) {
        if connection == candidate?.id { return actions += receivedOnCandidate(message, at: now) }
        if connection == retiring?.id { return actions += receivedOnRetiring(message) }
        guard isLive else { return }
        if case .connected(let keepAlive, _) = phase { phase = .connected(keepAlive: keepAlive, deadline: now + keepAlive) }
        guard case .data(let id, let events) = message else { return actions += receivedOnCurrent(message, at: now, random: &random) }
        guard let key = byID[id], case .established = subscriptions[key]?.phase else { return }
        deliver(key: key, events: events, from: current, into: &actions)
    }

    /// The client held back reading the current socket: the keep-alive watchdog counts from
    /// `now` at the earliest (the server's keep-alives may be waiting unread). A replacement
    /// socket keeps its own deadlines.
    mutating func readsHeldBack(on connection: ConnectionID, at now: Duration) {
        guard connection == current, case .connected(let keepAlive, let deadline) = phase else { return }
        phase = .connected(keepAlive: keepAlive, deadline: max(deadline, now + keepAlive))
    }

    /// Subscribes to the channel of `request` (validated by the transport, with its leading `/`).
    mutating func subscribe(_ request: SubscriptionRequest) -> [Action] {
        guard case .channel(let channel) = request.target else { return [] }
        return subscribe(key: request.key, channel: channel)
    }

    /// Unsubscribes `key`; see ``unsubscribe(key:)``.
    mutating func unsubscribe(_ key: SubscriptionKey) -> [Action] { unsubscribe(key: key) }

    /// Socket `connection` opened; see ``opened(_:at:)``.
    mutating func opened(_ connection: ConnectionID, handshake: Void, at now: Duration) -> [Action] {
        opened(connection, at: now)
    }

    /// The owner shut the transport down: every socket is closed (going away) and nothing more
    /// happens. The transport has already answered the waiting publishes.
    mutating func shutDown() -> [Action] {
        var actions: [Action] = []
        if isLive { actions.append(.close(current, code: .goingAway, reason: "")) }
        if let candidate { actions.append(.close(candidate.id, code: .goingAway, reason: "")) }
        if let retiring { actions.append(.close(retiring.id, code: .goingAway, reason: "")) }
        candidate = nil
        retiring = nil
        signedIn = false
        phase = .stopped
        return actions + [.report(.connectionStateChanged(.shutDown)), .finish]
    }
}
