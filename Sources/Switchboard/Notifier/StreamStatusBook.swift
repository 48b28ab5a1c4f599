import Foundation
import SwitchboardCore

/// What a notifier knows about one of its value streams; ``NotifierStatus`` shows it.
public struct StreamStatus: Hashable, Sendable {
    /// A consumer holds a stream of it, so the notifier wants its subscription.
    public var isRequested: Bool
    /// The subscription that serves it is in place on the current connection: the server
    /// acknowledged it (on a wire dialect without acknowledgements, it was sent on an
    /// acknowledged connection). False while disconnected, and for a refused subscription.
    public var isEstablished: Bool
    /// When the last value of the stream arrived (its receive time, ``EventMetadata/receivedAt``);
    /// nil before the first.
    public var lastEventAt: Date?

    /// Creates a status.
    /// - Parameters:
    ///   - isRequested: Whether a consumer holds a stream of it.
    ///   - isEstablished: Whether its subscription is in place.
    ///   - lastEventAt: When its last value arrived.
    public init(isRequested: Bool = false, isEstablished: Bool = false, lastEventAt: Date? = nil) {
        self.isRequested = isRequested
        self.isEstablished = isEstablished
        self.lastEventAt = lastEventAt
    }
}

/// What the notifier tells the observers of ``BackendNotifier/streamStatuses()``.
struct StatusBook {
    typealias Statuses = [NotifierStream: StreamStatus]

    /// When each stream last delivered a value (its receive time).
    private(set) var lastEventAt: [StreamID: Date] = [:]
    /// What the observers were last told.
    private var published: Statuses = [:]
    private(set) var observers: [Int: AsyncStream<Statuses>.Continuation] = [:]

    /// The status of every stream requested or that delivered a value.
    func statuses(requested: Set<StreamID>, established: Set<StreamID>) -> Statuses {
        var statuses: Statuses = [:]
        for stream in requested.union(lastEventAt.keys) {
            statuses[NotifierStream(stream)] = StreamStatus(
                isRequested: requested.contains(stream),
                isEstablished: requested.contains(stream) && established.contains(stream),
                lastEventAt: lastEventAt[stream])
        }
        return statuses
    }

    /// Adds an observer, which gets `current` first.
    mutating func addObserver(_ id: Int, _ continuation: AsyncStream<Statuses>.Continuation, current: Statuses) {
        if observers.isEmpty { published = current }
        continuation.yield(current)
        observers[id] = continuation
    }

    mutating func removeObserver(_ id: Int) { observers[id] = nil }

    /// Notes that `stream` delivered a value received at `receivedAt`, and tells the observers.
    mutating func recordDelivery(on stream: StreamID, receivedAt: Date) {
        lastEventAt[stream] = receivedAt
        guard !observers.isEmpty else { return }
        published[NotifierStream(stream), default: StreamStatus()].lastEventAt = receivedAt
        for observer in observers.values { observer.yield(published) }
    }

    /// Tells the observers of `current` if it differs from what they were told last.
    mutating func publish(_ current: Statuses) {
        guard current != published else { return }
        published = current
        for observer in observers.values { observer.yield(current) }
    }

    mutating func finish() {
        let finished = observers.values
        observers.removeAll()
        for observer in finished { observer.finish() }
    }
}
