import Foundation
import SwitchboardCore

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
        guard lifecycle != .shutDown else {
            continuation.yield(currentStreamStatuses())
            continuation.finish()
            return stream
        }
        let id = takeConsumerID()
        statusBook.addObserver(id, continuation, current: currentStreamStatuses())
        let inputs = inputContinuation
        continuation.onTermination = { _ in inputs.yield(.observerEnded(id)) }
        return stream
    }

    /// Notes that `stream` delivered a value received at `receivedAt`, and tells the status
    /// observers (whichever path delivered it: live, released after a catch-up, caught up).
    func recordDelivery(on stream: StreamID, receivedAt: Date) {
        statusBook.recordDelivery(on: stream, receivedAt: receivedAt)
    }

    /// Tells the status observers when a stream's status changed; called after every input.
    func publishStreamStatuses() {
        guard !statusBook.observers.isEmpty else { return }
        statusBook.publish(currentStreamStatuses())
    }

    func finishStatusObservers() { statusBook.finish() }

    private func currentStreamStatuses() -> StatusBook.Statuses {
        statusBook.statuses(
            requested: Set(consumers.values.map(\.stream)),
            established: connectionState == .connected ? table.establishedStreams : [])
    }
}
