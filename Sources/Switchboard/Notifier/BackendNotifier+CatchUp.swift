import CoreMetrics
import Foundation
import Logging
import SwitchboardCore
import SwitchboardSync

extension BackendNotifier {
    /// Fetching what was published while the notifier was not receiving, and delivering what
    /// consumers have not seen; off unless set in ``Configuration/catchUp``.
    ///
    /// The notifier catches up after every reconnect and every switch of transport, and when it
    /// first connects (from the checkpoint in ``store``, or from the moment ``run()`` started
    /// when the store holds none). While it catches up, live events are held back; the missed
    /// events are delivered first, in the order they were published, then the held ones, so
    /// each stream stays in publishing order. An event consumers already got live is not
    /// delivered again. See <doc:CatchingUpAfterGaps>.
    public struct CatchUp: Sendable {
        /// Where missed events come from: a `SyncClient` for the backend's sync endpoints.
        public var source: any CatchUpSource
        /// Where the checkpoint is kept between catch-ups (a `FileCheckpointStore` survives
        /// restarts). Keep one store per signed-in user.
        public var store: any CheckpointStore
        /// How many live deliveries are remembered, to recognise them when a catch-up fetches
        /// them again. When more arrive between two gaps, the notifier catches up on its own to
        /// move the checkpoint forward and forgets them.
        public var rememberedDeliveries: Int
        /// How long a catch-up after a (re)connection waits, once every subscription was sent,
        /// before it reads the log, when the transport's wire dialect has no per-subscription
        /// acknowledgement (``/SwitchboardCore/EventTransport/acknowledgesSubscriptions`` is false: legacy
        /// `graphql-ws` and `graphql-transport-ws`). An event published before the server has
        /// a subscription in place arrives neither live nor, if the log was read earlier, by the
        /// catch-up until the next gap, out of order; this gives the server time to set the
        /// subscriptions up. 500 ms by default; live events are held meanwhile. Transports that
        /// acknowledge subscriptions need no wait: the catch-up starts on the acknowledgements.
        public var subscriptionSettleTime: Duration
        /// How long a catch-up waits for the server to acknowledge the subscriptions before it
        /// reads the log anyway, with a warning: a subscription the server never answers must
        /// not hold live events back for good. 10 s by default.
        public var acknowledgementTimeout: Duration
        /// How many times a catch-up that fails on a network error or a timeout is tried again
        /// before the failure is reported and the held live events are released: released
        /// early, they would reach consumers before the events still missing, which the next
        /// gap's catch-up delivers. 2 by default; 0 reports the first failure.
        public var retries: Int
        /// The pause before the first retry; it doubles for each one after. 1 s by default.
        public var retryDelay: Duration
        /// The clock ``subscriptionSettleTime``, ``acknowledgementTimeout`` and ``retryDelay``
        /// are measured on.
        public var clock: any Clock<Duration>

        /// Creates the setting.
        /// - Parameters:
        ///   - source: Where missed events come from.
        ///   - store: Where the checkpoint is kept.
        ///   - rememberedDeliveries: How many live deliveries to remember between catch-ups.
        ///   - subscriptionSettleTime: The wait before reading the log on a transport without
        ///     subscription acknowledgements; negative values count as zero.
        ///   - acknowledgementTimeout: The longest wait for acknowledgements; negative values
        ///     count as zero.
        ///   - retries: How many times a catch-up failing on the network is tried again.
        ///   - retryDelay: The pause before the first retry, doubling after.
        ///   - clock: The clock for the waits.
        public init(
            source: any CatchUpSource, store: any CheckpointStore, rememberedDeliveries: Int = 100_000,
            subscriptionSettleTime: Duration = .milliseconds(500), acknowledgementTimeout: Duration = .seconds(10),
            retries: Int = 2, retryDelay: Duration = .seconds(1), clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.retries = max(0, retries)
            self.retryDelay = max(.zero, retryDelay)
            self.source = source
            self.store = store
            self.rememberedDeliveries = max(1, rememberedDeliveries)
            self.subscriptionSettleTime = max(.zero, subscriptionSettleTime)
            self.acknowledgementTimeout = max(.zero, acknowledgementTimeout)
            self.clock = clock
        }
    }

    /// Why the notifier catches up.
    enum CatchUpReason: Equatable, CustomStringConvertible {
        case start
        case gap(DeliveryGap)
        case rememberedDeliveriesFull

        var description: String {
            switch self {
            case .start: "start"
            case .gap(let gap): "\(gap)"
            case .rememberedDeliveriesFull: "remembered deliveries full"
            }
        }
    }

    /// How a value reaches ``publish(_:envelope:descriptor:eventId:legacyField:)``.
    enum DeliveryRoute: Equatable {
        /// Live from the transport.
        case live
        /// Fetched by a catch-up from the backend's log, which recorded it at `loggedAt`.
        case caughtUp(loggedAt: Date)
        /// Live, held back while a catch-up ran; it arrived on connection number `connection`.
        case released(connection: Int)
    }

    /// The bookkeeping of catch-ups.
    struct CatchUpBook {
        /// A catch-up is requested or running: live events are held.
        var running = false
        /// Requested, and waiting for the server to acknowledge every subscription on the
        /// current connection before reading the log (an event published before a subscription
        /// is in place is neither delivered live nor read by a catch-up that started earlier).
        var waiting: CatchUpReason?
        /// Handed to ``runCatchUps(_:)`` and not yet ended.
        var inFlight = false
        /// Counts the waits for acknowledgements, so that a deadline finds its own.
        var waits = 0
        /// Another gap happened while one ran: run again when it ends.
        var again: CatchUpReason?
        /// The running catch-up follows another without the held events having been released.
        var chained = false
        /// The first connection's catch-up was requested.
        var started = false
        /// Live envelopes held back while a catch-up runs, in arrival order, with the number of
        /// the connection each arrived on.
        var held: [(envelope: EventEnvelope, connection: Int)] = []
        /// Values delivered live since the checkpoint (two equal events are two deliveries).
        var delivered = Fingerprints()
        var deliveredTotal = 0
        /// The running catch-up's fetched events that reached consumers, and those skipped as
        /// already delivered live (for ``DataSyncCompletedEvent``).
        var fetchedDelivered = 0
        var fetchedSkipped = 0
        /// AppSync Events: values the running (or last) catch-up delivered, to recognise their
        /// live copies (which carry the same timestamp).
        var caughtUp = Fingerprints()
        /// Values the catch-up before delivered; forgotten when the next one starts.
        var caughtUpBefore = Fingerprints()
        /// Legacy GraphQL: values catch-ups delivered, to recognise their live copies (which carry
        /// no timestamp) by order and by when each connection was open.
        var legacyCopies = LegacyCopies()
        /// When ``run()`` started: the first catch-up starts there when the store holds no
        /// checkpoint.
        var startedAt = Date()
        /// The number of the current (or last) connection; each new one counts up.
        var connection = 0
        /// When each connection whose live events may still need matching was open.
        var windows: [Int: ConnectionWindow] = [:]
        /// When the latest connection attempt started.
        var attemptStartedAt: Date?

        mutating func connectionOpened() {
            connection += 1
            // Without held events, live ones arrive on this connection and later ones only.
            if !running { windows.removeAll() }
            windows[connection] = ConnectionWindow(opened: attemptStartedAt ?? Date())
            attemptStartedAt = nil
        }

        /// The current connection was seen lost at `date` (kept if it was seen earlier).
        mutating func connectionClosed(at date: Date) {
            if windows[connection]?.closed == nil { windows[connection]?.closed = date }
        }

        /// The window of connection `number`; one that is open from now on when it is unknown.
        func window(of number: Int) -> ConnectionWindow {
            windows[number] ?? ConnectionWindow(opened: Date())
        }
    }

    // MARK: Triggers

    /// Called once connected; catches up when the connection follows a gap, or is the first.
    func catchUpIfNeeded(after gap: DeliveryGap?) {
        guard configuration.catchUp != nil else { return }
        if let gap {
            broker.publish(DeliveryGapEvent(reason: gap.description, transport: transportKind))
            requestCatchUp(.gap(gap))
        } else if !catchUpBook.started {
            requestCatchUp(.start)
        }
    }

    func requestCatchUp(_ reason: CatchUpReason) {
        catchUpBook.started = true
        if catchUpBook.inFlight {
            catchUpBook.again = catchUpBook.again ?? reason
            return
        }
        // A catch-up that has yet to start reads the log later anyway: it covers this gap too.
        guard catchUpBook.waiting == nil else { return }
        catchUpBook.running = true
        catchUpBook.waiting = reason
        startCatchUpIfSubscribed()
        timeAcknowledgements()
    }

    /// Starts timing the wait for acknowledgements on the current connection, if there is one.
    func timeAcknowledgements() {
        guard catchUpBook.waiting != nil, connectionState == .connected else { return }
        catchUpBook.waits += 1
        acknowledgementWaitStarted.yield(catchUpBook.waits)
    }

    /// Starts the requested catch-up once connected with every subscription acknowledged (or,
    /// with `overdue`, connected at all).
    func startCatchUpIfSubscribed(overdue: Bool = false) {
        guard let reason = catchUpBook.waiting, connectionState == .connected, pendingSwitch == nil,
              overdue || table.isSettled else { return }
        catchUpBook.waiting = nil
        catchUpBook.inFlight = true
        logger.debug("catching up", metadata: ["switchboard.catchUp.reason": "\(reason)"])
        catchUpRequests.yield(reason)
    }

    /// Holds a live envelope back while a catch-up runs; false when it should be delivered now.
    func holdWhileCatchingUp(_ envelope: EventEnvelope) -> Bool {
        guard catchUpBook.running else { return false }
        catchUpBook.held.append((envelope, catchUpBook.connection))
        return true
    }

    /// Whether a decoded value should reach consumers, and the bookkeeping that goes with it.
    func admit(_ fingerprint: @autoclosure () -> Fingerprint, stream: StreamID, route: DeliveryRoute) -> Bool {
        guard let catchUp = configuration.catchUp else { return true }
        let mark = fingerprint()
        let connection: Int
        switch route {
        case .caughtUp(let loggedAt):
            if catchUpBook.delivered.take(mark) {
                catchUpBook.deliveredTotal -= 1
                catchUpBook.fetchedSkipped += 1
                catchUpMetrics.duplicates.increment()
                return false
            }
            catchUpBook.fetchedDelivered += 1
            switch transportKind {
            case .appsync: catchUpBook.caughtUp.add(mark)
            case .graphql: catchUpBook.legacyCopies.fetched(mark.key, stream: stream, loggedAt: loggedAt)
            }
            catchUpMetrics.delivered.increment()
            return true
        case .live:
            connection = catchUpBook.connection
        case .released(let heldOn):
            connection = heldOn
        }
        // A live copy of an event a catch-up delivered can arrive after it, even after the
        // catch-up ended: the previous catch-up's deliveries are still recognised.
        let isCopy =
            switch transportKind {
            case .appsync: catchUpBook.caughtUp.take(mark) || catchUpBook.caughtUpBefore.take(mark)
            case .graphql:
                catchUpBook.legacyCopies.takeCopy(mark.key, stream: stream, arrivedOn: catchUpBook.window(of: connection))
            }
        if isCopy {
            catchUpMetrics.duplicates.increment()
            return false
        }
        catchUpBook.delivered.add(mark)
        catchUpBook.deliveredTotal += 1
        if catchUpBook.deliveredTotal >= catchUp.rememberedDeliveries, !catchUpBook.running {
            requestCatchUp(.rememberedDeliveriesFull)
        }
        return true
    }

    /// Forgets what was delivered live since the checkpoint (after a catch-up moved it, and for
    /// the previous user).
    func resetCatchUp() {
        catchUpBook.delivered = Fingerprints()
        catchUpBook.deliveredTotal = 0
    }

    /// Sign-out or another user: forgets the previous user's held events, a catch-up still
    /// waiting to start, and what catch-ups fetched, so that nothing of theirs reaches the next
    /// user's consumers. A catch-up in flight ends by itself (it delivers only the signed-in
    /// user's events) and releases what is held by then.
    func forgetUser() {
        resetCatchUp()
        catchUpBook.held.removeAll()
        catchUpBook.waiting = nil
        catchUpBook.again = nil
        catchUpBook.chained = false
        catchUpBook.running = catchUpBook.inFlight
        catchUpBook.caughtUp = Fingerprints()
        catchUpBook.caughtUpBefore = Fingerprints()
        catchUpBook.legacyCopies = LegacyCopies()
    }

    // MARK: Running

    /// Times each wait for acknowledgements: one that outlasts
    /// ``CatchUp/acknowledgementTimeout`` starts its catch-up anyway, so that a subscription the
    /// server never answers does not hold live events back for good.
    nonisolated func runAcknowledgementDeadlines(_ waits: AsyncStream<Int>) async {
        guard let catchUp = configuration.catchUp else { return }
        // Each wait is timed from when it began, side by side: a wait acknowledged at once must
        // not delay the timing of the next one.
        await withDiscardingTaskGroup { group in
            for await wait in waits {
                group.addTask {
                    // Cancelled only when the notifier stops.
                    guard (try? await catchUp.clock.sleep(for: catchUp.acknowledgementTimeout)) != nil else { return }
                    await self.acknowledgementDeadlinePassed(wait)
                }
            }
        }
    }

    private func acknowledgementDeadlinePassed(_ wait: Int) {
        guard wait == catchUpBook.waits, catchUpBook.waiting != nil, connectionState == .connected else {
            return  // acknowledged meanwhile, or not connected: the next connection times it afresh
        }
        let unanswered = table.entries.values.filter { !$0.retiring && !$0.established }
        let waited = configuration.catchUp?.acknowledgementTimeout ?? .zero
        logger.warning("catching up without every subscription acknowledged", metadata: [
            "switchboard.catchUp.unacknowledged": "\(unanswered.count)", "switchboard.catchUp.waited": "\(waited)"])
        let keys = unanswered.map { "\($0.request.key)" }.sorted().joined(separator: ", ")
        report(SwitchboardError(
                   code: .timeout,
                   message: "the server did not acknowledge \(keys) within \(waited); catching up without waiting for it"),
               streams: unanswered.reduce(into: Set<StreamID>()) { $0.formUnion($1.serves) })
        startCatchUpIfSubscribed(overdue: true)
    }

    /// Runs the catch-ups the notifier requests, one at a time, until the notifier stops.
    nonisolated func runCatchUps(_ requests: AsyncStream<CatchUpReason>) async {
        for await reason in requests {
            guard let (catchUp, since, settle) = await catchUpStarting(reason) else { continue }
            let broker = broker
            let stopwatch = Stopwatch(catchUp.clock)
            var attempt = 0
            broker.publish(DataSyncStartedEvent(reason: "\(reason)"))
            do {
                if let settle {
                    // Cancelled only when the notifier stops; the catch-up then ends unheard.
                    try? await catchUp.clock.sleep(for: settle)
                }
                while true {
                    do {
                        let summary = try await catchUp.source.catchUp(
                            since: since, store: catchUp.store,
                            progress: { progress in
                                broker.publish(CatchUpProgressEvent(
                                    processed: progress.processed, total: progress.total, isFinal: progress.isFinal))
                            },
                            deliver: { events in await self.deliverCaughtUp(events) })
                        let counts = await catchUpEnded(.success(summary))
                        broker.publish(DataSyncCompletedEvent(
                            reason: "\(reason)", fetchedEvents: summary.deliveredEvents, deliveredEvents: counts.delivered,
                            skippedEvents: counts.skipped, pullRequests: summary.pullRequests,
                            completedOverStream: summary.completedOverStream, attempts: attempt + 1,
                            duration: stopwatch.elapsed()))
                        break
                    } catch where attempt < catchUp.retries && Self.isTransient(error) && !Task.isCancelled {
                        // From the checkpoint it saved last: nothing delivered is fetched again.
                        let delay = catchUp.retryDelay * (1 << attempt)
                        attempt += 1
                        await catchUpRetrying(after: error, attempt: attempt, in: delay)
                        try await catchUp.clock.sleep(for: delay)
                    }
                }
            } catch {
                _ = await catchUpEnded(.failure(error))
                guard await lifecycle == .running else { continue }
                broker.publish(DataSyncFailedEvent(
                    reason: "\(reason)", error: await asSwitchboardError(error, code: .network), attempts: attempt + 1))
            }
        }
    }

    /// The setting, where to start when the store holds no checkpoint, and how long to let
    /// unacknowledged subscriptions settle first (nil: no wait).
    private func catchUpStarting(_ reason: CatchUpReason) -> (CatchUp, SyncCheckpoint, Duration?)? {
        guard lifecycle == .running, let catchUp = configuration.catchUp else { return nil }
        if !catchUpBook.chained {
            // Within a chain, the held events have yet to be matched against every catch-up of it.
            catchUpBook.caughtUpBefore = catchUpBook.caughtUp
            catchUpBook.caughtUp = Fingerprints()
        }
        // Only a catch-up that follows a (re)connection races the subscriptions being set up.
        let followsConnection = reason != .rememberedDeliveriesFull
        let settle = followsConnection && !transport.acknowledgesSubscriptions && catchUp.subscriptionSettleTime > .zero
            ? catchUp.subscriptionSettleTime : nil
        return (catchUp, SyncCheckpoint(publishedAfter: catchUpBook.startedAt), settle)
    }

    /// Delivers one batch of missed events to the streams that take them.
    func deliverCaughtUp(_ events: [SyncEvent]) {
        guard lifecycle == .running, let identity else { return }
        let prefix = "\(configuration.namespace)/user/\(identity.userId)/"
        let active = Set(consumers.values.map(\.stream))
        let descriptors = active.sorted().map(StreamCatalog.descriptor)
        for event in events {
            guard event.channel.hasPrefix(prefix) else { continue }
            let envelope = EventEnvelope(
                subscription: "catch-up", payload: Data(event.event.utf8), receivedAt: Date(), transport: .appsync)
            deliverAppSync(envelope, document: JSONDocument(envelope.payload), to: descriptors, eventId: event.id,
                           route: .caughtUp(loggedAt: event.publishedAt))
        }
    }

    /// Whether a failed catch-up is worth trying again at once: the log was not reached, or did
    /// not answer in time. An expired checkpoint, a refusal or a store that cannot be written
    /// fails the same way again.
    nonisolated static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? SwitchboardError else { return false }
        return error.code == .network || error.code == .timeout
    }

    private func catchUpRetrying(after error: any Error, attempt: Int, in delay: Duration) {
        catchUpMetrics.retries.increment()
        logger.warning("catch-up failed; trying again, live events still held", metadata: [
            "switchboard.error": "\(asSwitchboardError(error, code: .network))",
            "switchboard.catchUp.attempt": "\(attempt + 1)", "switchboard.catchUp.delay": "\(delay)"])
    }

    /// Ends the running catch-up; returns how many fetched events it delivered and skipped.
    private func catchUpEnded(_ result: Result<SyncSummary, any Error>) -> (delivered: Int, skipped: Int) {
        let counts = (catchUpBook.fetchedDelivered, catchUpBook.fetchedSkipped)
        catchUpBook.fetchedDelivered = 0
        catchUpBook.fetchedSkipped = 0
        guard lifecycle == .running else { return counts }
        catchUpBook.inFlight = false
        switch result {
        case .success(let summary):
            logger.debug("caught up", metadata: [
                "switchboard.catchUp.events": "\(summary.deliveredEvents)",
                "switchboard.catchUp.checkpoint": "\(summary.checkpoint?.rawValue ?? "-")"])
            // Everything up to the new checkpoint is accounted for; what was delivered live
            // after it is remembered again as the held events are released.
            resetCatchUp()
        case .failure(let error):
            catchUpMetrics.failures.increment()
            report(asSwitchboardError(error, code: .network))
        }
        catchUpBook.running = false
        releaseAfterCatchUp()
        return counts
    }

    /// Starts the next catch-up of a chain, or releases the held events.
    private func releaseAfterCatchUp() {
        if let again = catchUpBook.again {
            // Another gap opened while this one was being filled: the held events may follow a
            // hole only the next catch-up fills, so they stay held until it has.
            catchUpBook.again = nil
            catchUpBook.chained = true
            requestCatchUp(again)
            return
        }
        catchUpBook.chained = false
        let held = catchUpBook.held
        catchUpBook.held.removeAll()
        for (envelope, connection) in held { deliver(envelope, route: .released(connection: connection)) }
        // From now on live events arrive on the current connection (or later ones) only.
        let current = catchUpBook.window(of: catchUpBook.connection)
        catchUpBook.windows = catchUpBook.windows.filter { $0.key >= catchUpBook.connection }
        catchUpBook.legacyCopies.forget(loggedBefore: current.opened)
    }
}

/// What recognises one delivered value again: its stream and fields without the metadata only
/// AppSync Events carries, plus its `timestamp` when it has one. Two values match when their
/// keys are equal and their timestamps are equal or one is missing (the legacy transport sends
/// none), so equal events published at different times stay distinct on AppSync Events.
struct Fingerprint: Equatable {
    var key: String
    var timestamp: Date?
}

/// A multiset of fingerprints.
struct Fingerprints {
    private var entries: [String: [Date?]] = [:]

    mutating func add(_ mark: Fingerprint) { entries[mark.key, default: []].append(mark.timestamp) }

    /// How many fingerprints it holds.
    var count: Int { entries.values.reduce(0) { $0 + $1.count } }

    /// Removes one entry that matches `mark`; false when none does.
    mutating func take(_ mark: Fingerprint) -> Bool {
        guard var timestamps = entries[mark.key] else { return false }
        let index = timestamps.firstIndex { $0 == mark.timestamp }
            ?? timestamps.firstIndex { $0 == nil || mark.timestamp == nil }
        guard let index else { return false }
        timestamps.remove(at: index)
        entries[mark.key] = timestamps.isEmpty ? nil : timestamps
        return true
    }
}

/// Published on the ``EventBroker`` when ``BackendNotifier`` is receiving again after a gap in
/// which events may have been missed (a reconnect, a switch of transport), and catch-up is on.
public struct DeliveryGapEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.deliveryGap"

    /// What caused the gap, such as `reconnected` or `transportSwitched(graphql -> appsync)`.
    public var reason: String
    /// The transport receiving again.
    public var transport: TransportKind

    /// Creates the event.
    public init(reason: String, transport: TransportKind) {
        self.reason = reason
        self.transport = transport
    }
}

/// Published on the ``EventBroker`` while ``BackendNotifier`` catches up: at most ten a second,
/// and a final exact one.
public struct CatchUpProgressEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.catchUpProgress"

    /// Events fetched so far (delivered, or skipped as already delivered live).
    public var processed: Int
    /// How many there are, once the server has said.
    public var total: Int?
    /// Whether this is the last update of the catch-up.
    public var isFinal: Bool

    /// Creates the event.
    public init(processed: Int, total: Int?, isFinal: Bool) {
        self.processed = processed
        self.total = total
        self.isFinal = isFinal
    }
}
