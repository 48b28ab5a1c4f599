import DequeModule
import Logging
import SwitchboardCore

/// What happened when a subscriber was given one record.
enum DeliveryOutcome: Sendable {
    /// The handler ran, or the stream buffered the record.
    case delivered
    /// A stream's buffer was full; the named event was dropped. `overflow` is set when this drop
    /// began an overflow episode.
    case dropped(eventName: String, overflow: ConsumerOverflowEvent?)
    /// The stream buffered the record, and its consumer has caught up after an overflow.
    case caughtUp(ConsumerOverflowEvent)
    /// The handler threw.
    case failed(any Error)
    /// The stream's consumer has gone; its termination hook removes the subscriber.
    case terminated
}

/// One registered subscriber: which events it wants and how to hand them over.
struct Subscriber: Sendable {
    /// What a subscriber is subscribed to.
    enum Scope: Hashable, Sendable {
        case event(ObjectIdentifier, name: String)
        case category(EventCategory)

        static func event<E: SwitchboardEvent>(_ type: E.Type) -> Scope {
            .event(ObjectIdentifier(type), name: E.eventName)
        }

        func matches(_ record: AnyEventRecord) -> Bool {
            switch self {
            case .event(let key, _): ObjectIdentifier(type(of: record.event)) == key
            case .category(let category): record.category == category
            }
        }
    }

    let id: UInt64
    let priority: EventPriority
    let scope: Scope
    /// The type check plus the user's filter, for choosing what a replay delivers. Called
    /// outside the lock.
    let accepts: @Sendable (AnyEventRecord) -> Bool
    /// Hands a record to the handler or stream; with `filtering`, only if the user's filter
    /// accepts it (the event is cast to its type once for both). Called outside the lock.
    let receive: @Sendable (_ record: AnyEventRecord, _ filtering: Bool) -> DeliveryOutcome

    /// Whether `self` is called before `other` for the same event.
    func precedes(_ other: Subscriber) -> Bool {
        priority != other.priority ? priority > other.priority : id < other.id
    }
}

/// Everything the broker guards with its lock. Pure bookkeeping: no user code runs in here.
struct BrokerState {
    private var nextSubscriberID: UInt64 = 1
    private var byEvent: [ObjectIdentifier: [Subscriber]] = [:]
    private var byCategory: [EventCategory: [Subscriber]] = [:]
    private(set) var scopes: [UInt64: Subscriber.Scope] = [:]
    /// Live records held for subscribers that are still receiving their replay.
    var replayBuffers: [UInt64: [AnyEventRecord]] = [:]
    /// What was published of each event type: its count and its metric instruments, looked up
    /// by type rather than by name on every publish.
    private var published: [ObjectIdentifier: PublishedType] = [:]
    private(set) var history = Deque<AnyEventRecord>()
    private(set) var deadLetters = Deque<DeadLetter>()
    var stats = BrokerStats()

    var subscriberCount: Int { scopes.count }

    mutating func makeSubscriberID() -> UInt64 {
        defer { nextSubscriberID += 1 }
        return nextSubscriberID
    }

    mutating func add(_ subscriber: Subscriber) {
        scopes[subscriber.id] = subscriber.scope
        switch subscriber.scope {
        case .event(let key, _): Self.insert(subscriber, into: &byEvent[key, default: []])
        case .category(let category): Self.insert(subscriber, into: &byCategory[category, default: []])
        }
    }

    /// Removes a subscriber and returns it, so the caller releases it (and any stream
    /// continuation it holds) after the lock is dropped.
    mutating func remove(_ id: UInt64) -> Subscriber? {
        guard let scope = scopes.removeValue(forKey: id) else { return nil }
        replayBuffers[id] = nil
        switch scope {
        case .event(let key, _): return Self.remove(id, from: &byEvent, key: key)
        case .category(let category): return Self.remove(id, from: &byCategory, key: category)
        }
    }

    /// Records a record as published and returns the subscribers to call now, in call order.
    /// Subscribers still replaying get the record in their replay buffer instead.
    /// Empties history and dead letters; returns how many records each held.
    mutating func discardHistory() -> (history: Int, deadLetters: Int) {
        defer {
            history = Deque()
            deadLetters = Deque()
        }
        return (history.count, deadLetters.count)
    }

    /// Records a published record (history, count) and returns the subscribers to call now
    /// (those still replaying history get it in their buffer instead), with the event type's
    /// metric instruments once ``setInstruments(_:for:)`` stored them.
    mutating func accept(
        _ record: AnyEventRecord, historyCapacity: Int
    ) -> (subscribers: [Subscriber], instruments: BrokerMetrics.PublishInstruments?) {
        if historyCapacity > 0 {
            if history.count >= historyCapacity { history.removeFirst(history.count - historyCapacity + 1) }
            history.append(record)
        }
        let type = ObjectIdentifier(Swift.type(of: record.event))
        let instruments = published[type, default: PublishedType(name: record.eventName)].count(record)
        let targets = subscribers(for: record, type: type)
        // No subscriber replaying history: every target is live (no copy of the list).
        if replayBuffers.isEmpty { return (targets, instruments) }
        var live: [Subscriber] = []
        for subscriber in targets {
            if replayBuffers[subscriber.id]?.append(record) == nil {
                live.append(subscriber)
            }
        }
        return (live, instruments)
    }

    /// Keeps the metric instruments of `record`'s event type for its later publishes.
    mutating func setInstruments(_ instruments: BrokerMetrics.PublishInstruments, for record: AnyEventRecord) {
        published[ObjectIdentifier(type(of: record.event)), default: PublishedType(name: record.eventName)].instruments = instruments
    }

    /// How many records of each event name were published.
    var publishedCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for entry in published.values { counts[entry.name, default: 0] += entry.count }
        return counts
    }

    mutating func appendDeadLetters(_ letters: [DeadLetter], capacity: Int) {
        stats.deadLetters += letters.count
        guard capacity > 0 else { return }
        deadLetters.append(contentsOf: letters)
        if deadLetters.count > capacity { deadLetters.removeFirst(deadLetters.count - capacity) }
    }

    /// The subscribers of the record's type and of its category, merged into call order.
    private func subscribers(for record: AnyEventRecord, type: ObjectIdentifier) -> [Subscriber] {
        let typed = byEvent[type] ?? []
        let categorized = byCategory.isEmpty ? [] : byCategory[record.category] ?? []
        if categorized.isEmpty { return typed }
        if typed.isEmpty { return categorized }
        var merged: [Subscriber] = []
        merged.reserveCapacity(typed.count + categorized.count)
        var (i, j) = (typed.startIndex, categorized.startIndex)
        while i < typed.endIndex, j < categorized.endIndex {
            if typed[i].precedes(categorized[j]) {
                merged.append(typed[i]); i += 1
            } else {
                merged.append(categorized[j]); j += 1
            }
        }
        merged.append(contentsOf: typed[i...])
        merged.append(contentsOf: categorized[j...])
        return merged
    }

    private static func insert(_ subscriber: Subscriber, into list: inout [Subscriber]) {
        let index = list.firstIndex { subscriber.precedes($0) } ?? list.endIndex
        list.insert(subscriber, at: index)
    }

    private static func remove<Key: Hashable>(_ id: UInt64, from lists: inout [Key: [Subscriber]], key: Key) -> Subscriber? {
        guard let index = lists[key]?.firstIndex(where: { $0.id == id }) else { return nil }
        let removed = lists[key]?.remove(at: index)
        if lists[key]?.isEmpty == true { lists[key] = nil }
        return removed
    }
}

/// The publishes of one event type, for ``BrokerState``.
struct PublishedType {
    let name: String
    var count = 0
    var instruments: BrokerMetrics.PublishInstruments?

    /// Counts one publish; returns the instruments.
    mutating func count(_ record: AnyEventRecord) -> BrokerMetrics.PublishInstruments? {
        count += 1
        return instruments
    }
}

extension EventBroker {
    func isSubscribed(_ id: UInt64) -> Bool {
        state.withLock { $0.scopes[id] != nil }
    }

    /// Registers a subscriber and, when `replay > 0`, delivers the last `replay` matching records
    /// from history before any live record.
    ///
    /// Registration and the history snapshot happen in one critical section, and the subscriber
    /// stays in "replaying" state (live records go to its replay buffer) until replay and the
    /// buffer are drained, so nothing is skipped, duplicated or reordered.
    func register(
        id: UInt64,
        priority: EventPriority,
        scope: Subscriber.Scope,
        replay: Int,
        accepts: @escaping @Sendable (AnyEventRecord) -> Bool,
        receive: @escaping @Sendable (AnyEventRecord, Bool) -> DeliveryOutcome
    ) {
        let subscriber = Subscriber(id: id, priority: priority, scope: scope, accepts: accepts, receive: receive)
        let (count, snapshot) = state.withLock { state in
            state.add(subscriber)
            guard replay > 0 else { return (state.subscriberCount, [AnyEventRecord]()) }
            state.replayBuffers[id] = []
            return (state.subscriberCount, state.history.filter { scope.matches($0) })
        }
        metrics.recordSubscriberCount(count)
        logger.debug(
            "Subscribed",
            metadata: [
                "switchboard.subscription.id": "\(id)",
                "switchboard.subscription.scope": "\(scope.logDescription)",
                "switchboard.subscription.priority": "\(priority)",
            ]
        )
        if replay > 0 {
            runReplay(of: snapshot, limit: replay, to: subscriber)
        }
    }

    /// Removes a subscriber; does nothing if it is already gone.
    func removeSubscriber(_ id: UInt64) {
        let (removed, count) = state.withLock { state in (state.remove(id), state.subscriberCount) }
        guard removed != nil else { return }
        metrics.recordSubscriberCount(count)
        logger.debug("Unsubscribed", metadata: ["switchboard.subscription.id": "\(id)"])
    }

    private func runReplay(of snapshot: [AnyEventRecord], limit: Int, to subscriber: Subscriber) {
        var selected: [AnyEventRecord] = []
        for record in snapshot.reversed() where selected.count < limit {
            if subscriber.accepts(record) { selected.append(record) }
        }
        var outcomes = DeliveryOutcomes()
        for record in selected.reversed() {
            deliver(record, to: subscriber, filtering: false, into: &outcomes)
        }
        // Drain live records that arrived meanwhile; go live once the buffer is empty.
        while let buffered = takeReplayBuffer(of: subscriber.id) {
            for record in buffered {
                deliver(record, to: subscriber, filtering: true, into: &outcomes)
            }
        }
        logger.trace(
            "Replayed history",
            metadata: ["switchboard.subscription.id": "\(subscriber.id)", "switchboard.replay.count": "\(selected.count)"]
        )
        commit(outcomes)
    }

    /// Takes the buffered live records of a replaying subscriber; returns nil (and marks the
    /// subscriber live) when there are none, or when the subscriber is gone.
    private func takeReplayBuffer(of id: UInt64) -> [AnyEventRecord]? {
        state.withLock { state in
            guard let buffered = state.replayBuffers[id] else { return nil }
            if buffered.isEmpty {
                state.replayBuffers[id] = nil
                return nil
            }
            state.replayBuffers[id] = []
            return buffered
        }
    }
}

extension Subscriber.Scope {
    var logDescription: String {
        switch self {
        case .event(_, let name): "event:\(name)"
        case .category(let category): "category:\(category.rawValue)"
        }
    }
}
