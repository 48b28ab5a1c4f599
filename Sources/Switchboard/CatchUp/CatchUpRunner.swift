import Foundation
import SwitchboardCore
import SwitchboardSync

/// Carries out the waiting and fetching the catch-up machine orders, in the notifier's task
/// group: fetches one at a time, and times the waits for acknowledgements side by side. What to
/// do with each outcome is the machine's decision; the runner reports outcomes back to the
/// notifier through its closures.
struct CatchUpRunner: Sendable {
    /// The setting: source, store, clock and waits.
    let setting: BackendNotifier.CatchUp
    /// Where progress and data-sync events are published.
    let broker: EventBroker
    /// The notifier's timeline and what is known of the backend's clock; each fetch records the
    /// server's time in it.
    let backendClock: BackendClock
    /// Whether the notifier is still running.
    let isRunning: @Sendable () async -> Bool
    /// Delivers a batch of fetched events, on the notifier.
    let deliver: @Sendable ([SyncEvent]) async -> Void
    /// How a fetch that failed on an attempt (from 1) goes on.
    let failed: @Sendable (any Error, Int) async -> CatchUpMachine.FailureDecision
    /// Ends the catch-up; returns how many fetched events reached consumers and how many were skipped.
    let ended: @Sendable (Result<SyncSummary, any Error>) async -> (delivered: Int, skipped: Int)

    /// Whether a failed catch-up is worth trying again at once: the log was not reached, or did
    /// not answer in time. An expired checkpoint, a refusal or a store that cannot be written
    /// fails the same way again.
    static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? SwitchboardError else { return false }
        return error.code == .network || error.code == .timeout
    }

    /// Times each wait for acknowledgements from when it began, side by side (a wait
    /// acknowledged at once must not delay the timing of the next one), and calls
    /// `deadlinePassed` with its number once ``BackendNotifier/CatchUp/acknowledgementTimeout``
    /// has passed.
    func timeAcknowledgements(_ waits: AsyncStream<Int>, deadlinePassed: @escaping @Sendable (Int) async -> Void) async {
        let setting = setting
        await withDiscardingTaskGroup { group in
            for await wait in waits {
                group.addTask {
                    // Cancelled only when the notifier stops.
                    guard (try? await setting.clock.sleep(for: setting.acknowledgementTimeout)) != nil else { return }
                    await deadlinePassed(wait)
                }
            }
        }
    }

    /// Runs the fetches the machine orders, one at a time, until the notifier stops.
    func run(_ orders: AsyncStream<CatchUpMachine.Order>) async {
        for await order in orders {
            guard await isRunning() else { continue }
            await fetch(order)
        }
    }

    private func fetch(_ order: CatchUpMachine.Order) async {
        let broker = broker
        let stopwatch = Stopwatch(setting.clock)
        var attempt = 1
        broker.publish(DataSyncStartedEvent(reason: "\(order.reason)"))
        if let settle = order.settle {
            // Cancelled only when the notifier stops; the catch-up then ends unheard.
            try? await setting.clock.sleep(for: settle)
        }
        while true {
            do {
                let summary = try await setting.source.catchUp(
                    from: .backendTime(at: order.sessionStart), store: setting.store, backendClock: backendClock,
                    progress: { progress in
                        broker.publish(CatchUpProgressEvent(
                            processed: progress.processed, total: progress.total, isFinal: progress.isFinal))
                    },
                    deliver: deliver)
                let counts = await ended(.success(summary))
                broker.publish(DataSyncCompletedEvent(
                    reason: "\(order.reason)", fetchedEvents: summary.deliveredEvents, deliveredEvents: counts.delivered,
                    skippedEvents: counts.skipped, pullRequests: summary.pullRequests,
                    completedOverStream: summary.completedOverStream, attempts: attempt, duration: stopwatch.elapsed()))
                return
            } catch {
                // From the checkpoint it saved last: nothing delivered is fetched again.
                if case .retry(let delay, let next) = await failed(error, attempt), !Task.isCancelled,
                   (try? await setting.clock.sleep(for: delay)) != nil {
                    attempt = next
                    continue
                }
                _ = await ended(.failure(error))
                guard await isRunning() else { return }
                let failure = error as? SwitchboardError ?? SwitchboardError(code: .network, message: "\(error)")
                broker.publish(DataSyncFailedEvent(reason: "\(order.reason)", error: failure, attempts: attempt))
                return
            }
        }
    }
}
