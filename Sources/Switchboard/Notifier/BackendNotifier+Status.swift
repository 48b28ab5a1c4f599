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
    /// When each stream last delivered a value (its receive time).
    var lastEventAt: [StreamID: Date] = [:]
    /// What the observers were last told.
    var published: [NotifierStream: StreamStatus] = [:]
    var observers: [Int: AsyncStream<[NotifierStream: StreamStatus]>.Continuation] = [:]
}

extension BackendNotifier {
    /// The status of every stream a consumer requested or that delivered a value: whether it is
    /// requested, whether its subscription is established on the current connection, and when
    /// its last value arrived. The current statuses come first, then a new dictionary on every
    /// change.
    ///
    /// The stream keeps only the newest dictionary for a consumer that falls behind: each one is
    /// complete, so nothing is lost by skipping older ones. ``NotifierStatus`` shows it to
    /// SwiftUI. Each call returns an independent stream.
    /// - Returns: A new stream for one consumer.
    public func streamStatuses() -> AsyncStream<[NotifierStream: StreamStatus]> {
        let (stream, continuation) = AsyncStream<[NotifierStream: StreamStatus]>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        // Observers already there hear of any change first; all then share what was published.
        publishStreamStatuses()
        let current = currentStreamStatuses()
        if statusBook.observers.isEmpty { statusBook.published = current }
        continuation.yield(current)
        guard lifecycle != .shutDown else {
            continuation.finish()
            return stream
        }
        let id = takeConsumerID()
        statusBook.observers[id] = continuation
        let inputs = inputContinuation
        continuation.onTermination = { _ in inputs.yield(.observerEnded(id)) }
        return stream
    }

    /// Notes that `stream` delivered a value received at `receivedAt`, and tells the status
    /// observers (whichever path delivered it: live, released after a catch-up, caught up).
    func recordDelivery(on stream: StreamID, receivedAt: Date) {
        statusBook.lastEventAt[stream] = receivedAt
        guard !statusBook.observers.isEmpty else { return }
        statusBook.published[NotifierStream(stream), default: StreamStatus()].lastEventAt = receivedAt
        for observer in statusBook.observers.values { observer.yield(statusBook.published) }
    }

    /// Tells the status observers when a stream's status changed; called after every input.
    func publishStreamStatuses() {
        guard !statusBook.observers.isEmpty else { return }
        let current = currentStreamStatuses()
        guard current != statusBook.published else { return }
        statusBook.published = current
        for observer in statusBook.observers.values { observer.yield(current) }
    }

    func finishStatusObservers() {
        let observers = statusBook.observers.values
        statusBook.observers.removeAll()
        for observer in observers { observer.finish() }
    }

    private func currentStreamStatuses() -> [NotifierStream: StreamStatus] {
        let requested = Set(consumers.values.map(\.stream))
        let established = connectionState == .connected ? table.establishedStreams : []
        var statuses: [NotifierStream: StreamStatus] = [:]
        for stream in requested.union(statusBook.lastEventAt.keys) {
            statuses[NotifierStream(stream)] = StreamStatus(
                isRequested: requested.contains(stream),
                isEstablished: requested.contains(stream) && established.contains(stream),
                lastEventAt: statusBook.lastEventAt[stream])
        }
        return statuses
    }
}
