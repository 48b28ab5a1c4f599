import Foundation
import SwitchboardCore
import SwitchboardSync

/// Feeding ``CatchUpControl`` and carrying out what it hands back.
extension BackendNotifier {
    /// What the catch-up machine needs to know of the connection.
    var catchUpReadiness: CatchUpMachine.Readiness {
        CatchUpMachine.Readiness(
            connected: connectionState == .connected && !switching.isPending, settled: subscriptions.table.isSettled,
            acknowledgesSubscriptions: transport.acknowledgesSubscriptions,
            liveEventsCarryLogTimes: transport.liveEventsCarryLogTimes)
    }

    /// A catch-up was requested and waits for the subscriptions before it reads the log.
    var catchUpIsWaiting: Bool { catchUp.isWaiting }

    /// Runs one step of the catch-up machine (when catch-up is on) and carries out its actions.
    func catchUpStep(_ step: (inout CatchUpMachine, CatchUpMachine.Readiness) -> [CatchUpMachine.Action]) {
        perform(catchUp.step(catchUpReadiness, step))
    }

    /// Whether a decoded value should reach consumers, and the bookkeeping that goes with it.
    func admit(_ fingerprint: @autoclosure () -> Fingerprint, stream: StreamID, route: DeliveryRoute) -> Bool {
        let (admitted, actions) = catchUp.admit(
            fingerprint, stream: stream, route: route, now: backendClock.now, readiness: { catchUpReadiness })
        if !actions.isEmpty { perform(actions) }
        return admitted
    }

    private func perform(_ actions: [CatchUpMachine.Action]) {
        for action in actions {
            switch catchUp.carryOut(action, broker: broker, transport: transportKind, logger: logger) {
            case .acknowledgementsOverdue?:
                let (error, streams) = catchUp.overdue(subscriptions.unacknowledged, logger: logger)
                report(error, streams: streams)
            case .release(let held)?:
                for entry in held { deliver(entry.envelope, route: .released(connection: entry.connection)) }
                catchUp.note { $0.releaseDelivered(now: backendClock.now()) }
            case .reconnect?:
                connectIfActive()
            case .announceGap?, .timeAcknowledgements?, .fetch?, .evicted?, nil:
                break
            }
        }
    }

    /// Delivers one batch of missed events to the streams that take them.
    func deliverCaughtUp(_ events: [SyncEvent]) {
        guard lifecycle == .running, let identity = session.identity else { return }
        // The answer that brought them taught the backend's clock: copies are matched on it.
        let estimate = backendClock.estimate
        catchUp.note { $0.learned(estimate) }
        let descriptors = Set(consumers.values.map(\.stream)).sorted().map(StreamCatalog.descriptor)
        let caughtUp = CatchUpControl.envelopes(
            events, userId: identity.userId, namespace: configuration.namespace, now: configuration.now())
        for event in caughtUp {
            deliver(event.envelope, to: descriptors, eventId: .text(event.eventId), route: .caughtUp(loggedAt: event.loggedAt))
        }
    }

    /// A fetch failed on its `attempt`: asks the machine whether to try again.
    func catchUpFailed(_ error: any Error, attempt: Int) -> CatchUpMachine.FailureDecision {
        guard lifecycle == .running else { return .giveUp }
        return catchUp.failed(error, attempt: attempt, logger: logger)
    }

    /// Ends the running catch-up; returns how many fetched events it delivered and skipped.
    func catchUpEnded(_ result: Result<SyncSummary, any Error>) -> (delivered: Int, skipped: Int) {
        guard lifecycle == .running else { return catchUp.fetchedCounts }
        let ended = catchUp.ended(result, now: backendClock.now, readiness: { catchUpReadiness }, logger: logger)
        if let failure = ended.failure { report(failure) }
        perform(ended.actions)
        return (ended.delivered, ended.skipped)
    }
}
