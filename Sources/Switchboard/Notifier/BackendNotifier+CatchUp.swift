import CoreMetrics
import Foundation
import Logging
import SwitchboardCore
import SwitchboardSync

/// How a value reaches ``BackendNotifier/deliver(_:route:)``.
typealias DeliveryRoute = CatchUpMachine.Route

extension BackendNotifier {
    // MARK: Feeding the machine

    /// What the catch-up machine needs to know of the connection.
    var catchUpReadiness: CatchUpMachine.Readiness {
        CatchUpMachine.Readiness(
            connected: connectionState == .connected && pendingSwitch == nil, settled: table.isSettled,
            acknowledgesSubscriptions: transport.acknowledgesSubscriptions)
    }

    /// A catch-up was requested and waits for the subscriptions before it reads the log.
    var catchUpIsWaiting: Bool { catchUpMachine?.waiting != nil }

    /// Runs one step of the catch-up machine (when catch-up is on) and carries out its actions.
    func catchUpStep(_ step: (inout CatchUpMachine, CatchUpMachine.Readiness) -> [CatchUpMachine.Action]) {
        guard catchUpMachine != nil else { return }
        let actions = step(&catchUpMachine!, catchUpReadiness)
        perform(actions)
    }

    /// Holds a live envelope back while a catch-up runs; false when it should be delivered now.
    func holdWhileCatchingUp(_ envelope: EventEnvelope) -> Bool {
        guard catchUpMachine != nil else { return false }
        return catchUpMachine!.hold(envelope)
    }

    /// Whether a decoded value should reach consumers, and the bookkeeping that goes with it.
    func admit(_ fingerprint: @autoclosure () -> Fingerprint, stream: StreamID, route: DeliveryRoute) -> Bool {
        guard catchUpMachine != nil else { return true }
        let (admitted, actions) = catchUpMachine!.admit(
            fingerprint(), stream: stream, route: route, now: configuration.now(), readiness: catchUpReadiness)
        if !admitted {
            catchUpMetrics.duplicates.increment()
        } else if case .caughtUp = route {
            catchUpMetrics.delivered.increment()
        }
        perform(actions)
        return admitted
    }

    private func perform(_ actions: [CatchUpMachine.Action]) {
        for action in actions {
            switch action {
            case .announceGap(let gap):
                broker.publish(DeliveryGapEvent(reason: gap.description, transport: transportKind))
            case .timeAcknowledgements(let wait):
                acknowledgementWaitStarted.yield(wait)
            case .acknowledgementsOverdue:
                let unanswered = table.entries.values.filter { !$0.retiring && !$0.established }
                let waited = configuration.catchUp?.acknowledgementTimeout ?? .zero
                logger.warning("catching up without every subscription acknowledged", metadata: [
                    "switchboard.catchUp.unacknowledged": "\(unanswered.count)", "switchboard.catchUp.waited": "\(waited)"])
                let keys = unanswered.map { "\($0.request.key)" }.sorted().joined(separator: ", ")
                report(SwitchboardError(
                           code: .timeout,
                           message: "the server did not acknowledge \(keys) within \(waited); catching up without waiting for it"),
                       streams: unanswered.reduce(into: Set<StreamID>()) { $0.formUnion($1.serves) })
            case .fetch(let order):
                logger.debug("catching up", metadata: ["switchboard.catchUp.reason": "\(order.reason)"])
                catchUpRequests.yield(order)
            case .release(let held):
                for entry in held { deliver(entry.envelope, route: .released(connection: entry.connection)) }
                catchUpMachine?.releaseDelivered(now: configuration.now())
            }
        }
    }

    /// Delivers one batch of missed events to the streams that take them.
    func deliverCaughtUp(_ events: [SyncEvent]) {
        guard lifecycle == .running, let identity else { return }
        let prefix = "\(configuration.namespace)/user/\(identity.userId)/"
        let active = Set(consumers.values.map(\.stream))
        let descriptors = active.sorted().map(StreamCatalog.descriptor)
        let now = configuration.now()
        for event in events {
            guard event.channel.hasPrefix(prefix) else { continue }
            let envelope = EventEnvelope(
                subscription: "catch-up", payload: Data(event.event.utf8), receivedAt: now, transport: .appsync)
            deliver(envelope, to: descriptors, eventId: event.id, route: .caughtUp(loggedAt: event.publishedAt))
        }
    }

    /// A fetch failed on its `attempt`: asks the machine whether to try again.
    func catchUpFailed(_ error: any Error, attempt: Int) -> CatchUpMachine.FailureDecision {
        guard lifecycle == .running, let machine = catchUpMachine else { return .giveUp }
        let decision = machine.failed(attempt: attempt, transient: CatchUpRunner.isTransient(error))
        if case .retry(let delay, let next) = decision {
            catchUpMetrics.retries.increment()
            logger.warning("catch-up failed; trying again, live events still held", metadata: [
                "switchboard.error": "\(asSwitchboardError(error, code: .network))",
                "switchboard.catchUp.attempt": "\(next)", "switchboard.catchUp.delay": "\(delay)"])
        }
        return decision
    }

    /// Ends the running catch-up; returns how many fetched events it delivered and skipped.
    func catchUpEnded(_ result: Result<SyncSummary, any Error>) -> (delivered: Int, skipped: Int) {
        guard let machine = catchUpMachine else { return (0, 0) }
        guard lifecycle == .running else { return (machine.fetchedDelivered, machine.fetchedSkipped) }
        switch result {
        case .success(let summary):
            logger.debug("caught up", metadata: [
                "switchboard.catchUp.events": "\(summary.deliveredEvents)",
                "switchboard.catchUp.checkpoint": "\(summary.checkpoint?.rawValue ?? "-")"])
        case .failure(let error):
            catchUpMetrics.failures.increment()
            report(asSwitchboardError(error, code: .network))
        }
        let (delivered, skipped, actions) = catchUpMachine!.ended(
            succeeded: (try? result.get()) != nil, now: configuration.now(), readiness: catchUpReadiness)
        perform(actions)
        return (delivered, skipped)
    }
}
