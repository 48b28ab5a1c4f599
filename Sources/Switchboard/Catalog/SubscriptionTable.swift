import SwitchboardCore

/// One subscription the notifier wants the transport to hold, and the streams it serves: an entry
/// of the transport's ``/SwitchboardCore/SubscriptionPlan`` in the notifier's terms.
package struct PlannedSubscription: Equatable, Sendable {
    package var request: SubscriptionRequest
    package var serves: Set<StreamID>

    package init(request: SubscriptionRequest, serves: Set<StreamID>) {
        self.request = request
        self.serves = serves
    }
}

/// The subscriptions the notifier holds in its transport, and which one serves each stream.
///
/// A pure value: inputs are facts (a new plan, an acknowledgement, a rejection, a lost
/// connection); outputs are the commands for the transport. Changing the plan is
/// make-before-break: a subscription that is being replaced (say the exact presence channel,
/// when a `device/*` wildcard takes over) keeps serving its streams until the replacement is
/// acknowledged, and each stream is served by exactly one subscription at a time, so nothing is
/// lost or delivered twice while consumers come and go. Frames on one socket are ordered, so an
/// event seen on both subscriptions after the acknowledgement is delivered once, via the new one.
package struct SubscriptionTable: Sendable {
    package struct Entry: Equatable, Sendable {
        package var request: SubscriptionRequest
        package var serves: Set<StreamID>
        package var established = false
        package var retiring = false
    }

    package enum Command: Equatable, Sendable {
        case subscribe(SubscriptionRequest)
        case unsubscribe(SubscriptionKey)
    }

    package private(set) var entries: [SubscriptionKey: Entry] = [:]
    private var routes: [SubscriptionKey: Set<StreamID>] = [:]
    /// Rejected by the server on this connection, with the streams the current plan still
    /// wants from them; not sent again until the next connection. An established subscription
    /// that the rejected one was meant to replace keeps serving those streams meanwhile.
    private var rejected: [SubscriptionKey: Set<StreamID>] = [:]

    package init() {}

    /// The streams an event on `key` is delivered to.
    package func streams(servedBy key: SubscriptionKey) -> Set<StreamID> { routes[key] ?? [] }

    /// Whether the server acknowledged every subscription the plan wants on this connection (a
    /// rejected one counts, as it is not waited for). Events published before that may not
    /// arrive live, so a catch-up reads the backend's log only once this holds.
    package var isSettled: Bool { entries.values.allSatisfy { $0.retiring || $0.established } }

    /// The streams an acknowledged subscription serves on this connection (one being replaced
    /// included, as it still delivers).
    package var establishedStreams: Set<StreamID> {
        entries.values.reduce(into: Set<StreamID>()) { streams, entry in
            if entry.established { streams.formUnion(entry.serves) }
        }
    }

    /// Moves towards `plan`.
    package mutating func apply(_ plan: [SubscriptionKey: PlannedSubscription]) -> [Command] {
        var commands: [Command] = []
        for key in rejected.keys.sorted() { rejected[key] = plan[key]?.serves ?? [] }
        for key in plan.keys.sorted() where rejected[key] == nil {
            guard let planned = plan[key] else { continue }
            if entries[key] != nil {
                entries[key]?.serves = planned.serves
                entries[key]?.retiring = false
            } else {
                entries[key] = Entry(request: planned.request, serves: planned.serves)
                commands.append(.subscribe(planned.request))
            }
        }
        for key in entries.keys.sorted() where plan[key] == nil {
            entries[key]?.retiring = true
        }
        commands += retireReplaced()
        recomputeRoutes()
        return commands
    }

    /// The server acknowledged `key`.
    package mutating func established(_ key: SubscriptionKey) -> [Command] {
        guard entries[key] != nil else { return [] }
        entries[key]?.established = true
        let commands = retireReplaced()
        recomputeRoutes()
        return commands
    }

    /// The server rejected `key`; the transport no longer holds it. Returns the streams it was
    /// meant to serve.
    package mutating func rejected(_ key: SubscriptionKey) -> (streams: Set<StreamID>, commands: [Command]) {
        guard let entry = entries.removeValue(forKey: key) else { return ([], []) }
        if !entry.retiring { rejected[key] = entry.serves }
        let commands = retireReplaced()
        recomputeRoutes()
        return (entry.retiring ? [] : entry.serves, commands)
    }

    /// The connection dropped: nothing is acknowledged any more, subscriptions being replaced
    /// are dropped at once, and rejected ones may be tried again on the next connection.
    package mutating func connectionLost() -> [Command] {
        var commands: [Command] = []
        for key in entries.keys.sorted() {
            if entries[key]?.retiring == true {
                entries[key] = nil
                commands.append(.unsubscribe(key))
            } else {
                entries[key]?.established = false
            }
        }
        rejected.removeAll()
        recomputeRoutes()
        return commands
    }

    /// Drops everything (sign-out, change of user or organization).
    package mutating func removeAll() -> [Command] {
        let commands = entries.keys.sorted().map(Command.unsubscribe)
        entries.removeAll()
        rejected.removeAll()
        routes.removeAll()
        return commands
    }

    /// Unsubscribes retiring entries that no longer serve a wanted stream: either nobody wants
    /// the stream any more, or its new subscription has been acknowledged.
    private mutating func retireReplaced() -> [Command] {
        // Streams whose new subscription was rejected still await a replacement (on the next
        // connection), so the old subscription keeps serving them.
        var awaitingReplacement = rejected.values.reduce(into: Set<StreamID>()) { $0.formUnion($1) }
        for entry in entries.values where !entry.retiring && !entry.established {
            awaitingReplacement.formUnion(entry.serves)
        }
        var commands: [Command] = []
        for key in entries.keys.sorted() {
            guard let entry = entries[key], entry.retiring else { continue }
            if entry.established && !entry.serves.isDisjoint(with: awaitingReplacement) { continue }
            entries[key] = nil
            commands.append(.unsubscribe(key))
        }
        return commands
    }

    private mutating func recomputeRoutes() {
        routes.removeAll(keepingCapacity: true)
        var wanted = rejected.values.reduce(into: Set<StreamID>()) { $0.formUnion($1) }
        for entry in entries.values where !entry.retiring { wanted.formUnion(entry.serves) }
        for stream in wanted {
            let candidates = entries.filter { $0.value.serves.contains(stream) }
            let server =
                candidates.first { !$0.value.retiring && $0.value.established }
                ?? candidates.first { $0.value.retiring && $0.value.established }
                ?? candidates.first { !$0.value.retiring }
            if let key = server?.key { routes[key, default: []].insert(stream) }
        }
    }
}
