import CoreMetrics
import Foundation
import Logging
import SwitchboardCore
import SwitchboardSync

/// How a value reaches ``BackendNotifier/deliver(_:route:)``.
typealias DeliveryRoute = CatchUpMachine.Route

/// The notifier's side of catch-up: the ``CatchUpMachine`` (when
/// ``BackendNotifier/Configuration/catchUp`` is set), its counters, and the queues to the
/// ``CatchUpRunner``.
///
/// The notifier asks it, on its actor, what to do with live envelopes and decoded values, and
/// tells it what happened to fetches. It carries out the machine's actions that need nothing of
/// the notifier (announcing a gap, ordering a fetch, timing the acknowledgements) and hands the
/// others back. Without the setting every answer is "deliver now", and nothing is counted.
struct CatchUpControl {
    /// The setting; nil when catch-up is off.
    let setting: BackendNotifier.CatchUp?
    /// Catch-up's state; made when the notifier starts, if catch-up is on.
    private(set) var machine: CatchUpMachine?
    let metrics: CatchUpMetrics
    /// The fetches the machine ordered, for the runner.
    let orders: AsyncStream<CatchUpMachine.Order>
    private let ordered: AsyncStream<CatchUpMachine.Order>.Continuation
    /// The waits for acknowledgements that began (their numbers), for the runner to time.
    let acknowledgementWaits: AsyncStream<Int>
    private let acknowledgementWaitStarted: AsyncStream<Int>.Continuation

    init(setting: BackendNotifier.CatchUp?, metricsFactory: any MetricsFactory) {
        self.setting = setting
        metrics = CatchUpMetrics(factory: metricsFactory)
        (orders, ordered) = AsyncStream<CatchUpMachine.Order>.makeStream()
        (acknowledgementWaits, acknowledgementWaitStarted) = AsyncStream<Int>.makeStream()
    }

    /// The notifier starts at moment `now` of its timeline: makes the machine, if catch-up is on.
    mutating func start(at now: Duration, backendTime: BackendTimeEstimate) {
        guard let setting else { return }
        machine = CatchUpMachine(
            settings: CatchUpMachine.Settings(
                rememberedDeliveries: setting.rememberedDeliveries, subscriptionSettleTime: setting.subscriptionSettleTime,
                retries: setting.retries, retryDelay: setting.retryDelay,
                rememberedDeliveryBytes: setting.rememberedDeliveryBytes, caughtUpBytes: setting.caughtUpBytes,
                heldEnvelopeBytes: setting.heldEnvelopeBytes),
            startedAt: now, backendTime: backendTime)
    }

    /// A catch-up was requested and waits for the subscriptions before it reads the log.
    var isWaiting: Bool { machine?.waiting != nil }

    /// How many fetched values the running (or last) catch-up delivered and skipped.
    var fetchedCounts: (delivered: Int, skipped: Int) {
        guard let machine else { return (0, 0) }
        return (machine.fetchedDelivered, machine.fetchedSkipped)
    }

    /// Tells the machine of a fact that asks for no action (a connection opening or closing, an
    /// attempt starting, a change of user); nothing when catch-up is off.
    mutating func note(_ fact: (inout CatchUpMachine) -> Void) {
        guard machine != nil else { return }
        fact(&machine!)
    }

    /// Runs one step of the machine; its actions, none when catch-up is off.
    mutating func step(
        _ readiness: @autoclosure () -> CatchUpMachine.Readiness,
        _ step: (inout CatchUpMachine, CatchUpMachine.Readiness) -> [CatchUpMachine.Action]
    ) -> [CatchUpMachine.Action] {
        guard machine != nil else { return [] }
        return step(&machine!, readiness())
    }

    /// Holds a live envelope back while a catch-up runs; false when it should be delivered now.
    /// What the held envelopes' bound drops is counted and logged here, and `reconnect` is
    /// called when the machine asks for a new connection (it must not touch this value: it runs
    /// while this method has it).
    mutating func hold(_ envelope: EventEnvelope, logger: Logger, reconnect: () -> Void) -> Bool {
        guard machine != nil else { return false }
        let (held, actions) = machine!.hold(envelope)
        for case .evicted(let what, let count) in actions { evicted(what, count: count, logger: logger) }
        if actions.contains(.reconnect) { reconnect() }
        return held
    }

    private func evicted(_ what: CatchUpMachine.Eviction, count: Int, logger: Logger) {
        metrics.evicted(what).increment(by: Int64(count))
        logger.warning("catch-up memory bound reached; entries forgotten", metadata: [
            "switchboard.catchUp.evicted": "\(what.rawValue)", "switchboard.catchUp.count": "\(count)"])
    }

    /// Whether a decoded value should reach consumers, counted, with the machine's actions.
    mutating func admit(
        _ fingerprint: () -> Fingerprint, stream: StreamID, route: DeliveryRoute,
        now: () -> Duration, readiness: () -> CatchUpMachine.Readiness
    ) -> (admitted: Bool, actions: [CatchUpMachine.Action]) {
        guard machine != nil else { return (true, []) }
        let (admitted, actions) = machine!.admit(fingerprint(), stream: stream, route: route, now: now(), readiness: readiness())
        if !admitted {
            metrics.duplicates.increment()
        } else if case .caughtUp = route {
            metrics.delivered.increment()
        }
        return (admitted, actions)
    }

    /// Carries out `action` if it needs nothing of the notifier: announcing a gap on `broker`,
    /// ordering a fetch, starting to time a wait. Returns it back otherwise.
    func carryOut(
        _ action: CatchUpMachine.Action, broker: EventBroker, transport: TransportKind, logger: Logger
    ) -> CatchUpMachine.Action? {
        switch action {
        case .announceGap(let gap):
            broker.publish(DeliveryGapEvent(reason: gap.description, transport: transport))
        case .timeAcknowledgements(let wait):
            acknowledgementWaitStarted.yield(wait)
        case .fetch(let order):
            logger.debug("catching up", metadata: ["switchboard.catchUp.reason": "\(order.reason)"])
            ordered.yield(order)
        case .evicted(let what, let count):
            evicted(what, count: count, logger: logger)
        case .acknowledgementsOverdue, .release, .reconnect:
            return action
        }
        return nil
    }

    /// The acknowledgements of `unanswered` did not come in time: logs it and returns the error
    /// to report on the streams they serve.
    func overdue(_ unanswered: [SubscriptionTable.Entry], logger: Logger) -> (SwitchboardError, streams: Set<StreamID>) {
        let waited = setting?.acknowledgementTimeout ?? .zero
        logger.warning("catching up without every subscription acknowledged", metadata: [
            "switchboard.catchUp.unacknowledged": "\(unanswered.count)", "switchboard.catchUp.waited": "\(waited)"])
        let keys = unanswered.map { "\($0.request.key)" }.sorted().joined(separator: ", ")
        return (SwitchboardError(
                    code: .timeout,
                    message: "the server did not acknowledge \(keys) within \(waited); catching up without waiting for it"),
                unanswered.reduce(into: Set<StreamID>()) { $0.formUnion($1.serves) })
    }

    /// A fetch failed on its `attempt`: whether to try again, counted and logged.
    func failed(_ error: any Error, attempt: Int, logger: Logger) -> CatchUpMachine.FailureDecision {
        guard let machine else { return .giveUp }
        let decision = machine.failed(attempt: attempt, transient: CatchUpRunner.isTransient(error))
        if case .retry(let delay, let next) = decision {
            metrics.retries.increment()
            logger.warning("catch-up failed; trying again, live events still held", metadata: [
                "switchboard.error": "\(SwitchboardError.wrapping(error, code: .network))",
                "switchboard.catchUp.attempt": "\(next)", "switchboard.catchUp.delay": "\(delay)"])
        }
        return decision
    }

    /// The running catch-up ended with `result`: how many fetched values it delivered and
    /// skipped, the failure to report, and the machine's actions (the next catch-up of a chain,
    /// or the release of the held envelopes).
    mutating func ended(
        _ result: Result<SyncSummary, any Error>, now: () -> Duration, readiness: () -> CatchUpMachine.Readiness, logger: Logger
    ) -> (delivered: Int, skipped: Int, failure: SwitchboardError?, actions: [CatchUpMachine.Action]) {
        guard machine != nil else { return (0, 0, nil, []) }
        var failure: SwitchboardError?
        switch result {
        case .success(let summary):
            logger.debug("caught up", metadata: [
                "switchboard.catchUp.events": "\(summary.deliveredEvents)",
                "switchboard.catchUp.checkpoint": "\(summary.checkpoint?.rawValue ?? "-")"])
        case .failure(let error):
            metrics.failures.increment()
            failure = .wrapping(error, code: .network)
        }
        let (delivered, skipped, actions) = machine!.ended(
            succeeded: (try? result.get()) != nil, now: now(), readiness: readiness())
        return (delivered, skipped, failure, actions)
    }

    /// The fetched events meant for `userId`'s channels in `namespace`, as envelopes received at
    /// `now`, each with its id in the log and when the log recorded it.
    static func envelopes(
        _ events: [SyncEvent], userId: String, namespace: String, now: Date
    ) -> [(envelope: EventEnvelope, eventId: String, loggedAt: Date)] {
        let prefix = "\(namespace)/user/\(userId)/"
        return events.filter { $0.channel.hasPrefix(prefix) }.map { event in
            (EventEnvelope(subscription: "catch-up", payload: Data(event.event.utf8), receivedAt: now, transport: .catchUp),
             event.id, event.publishedAt)
        }
    }

    /// The notifier stopped: ends the runner's queues.
    func finish() {
        ordered.finish()
        acknowledgementWaitStarted.finish()
    }
}
