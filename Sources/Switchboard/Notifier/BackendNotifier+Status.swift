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
        // Observers already there hear of any change first; all then share what was published.
        publishStreamStatuses()
        return observers.observeStatuses(current: currentStreamStatuses(), open: lifecycle != .shutDown, ended: observerEnded)
    }

    /// Tells the status observers when a stream's status changed; called after every input.
    func publishStreamStatuses() {
        guard !observers.statuses.observers.isEmpty else { return }
        observers.statuses.publish(currentStreamStatuses())
    }

    private func currentStreamStatuses() -> StatusBook.Statuses {
        observers.statuses.statuses(
            requested: Set(consumers.values.map(\.stream)),
            established: connectionState == .connected ? subscriptions.table.establishedStreams : [])
    }
}
