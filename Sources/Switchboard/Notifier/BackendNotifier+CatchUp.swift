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

        /// Creates the setting.
        /// - Parameters:
        ///   - source: Where missed events come from.
        ///   - store: Where the checkpoint is kept.
        ///   - rememberedDeliveries: How many live deliveries to remember between catch-ups.
        public init(source: any CatchUpSource, store: any CheckpointStore, rememberedDeliveries: Int = 100_000) {
            self.source = source
            self.store = store
            self.rememberedDeliveries = max(1, rememberedDeliveries)
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
    enum DeliveryRoute {
        /// Live from the transport.
        case live
        /// Fetched by a catch-up.
        case caughtUp
        /// Live, held back while a catch-up ran.
        case released
    }

    /// The bookkeeping of catch-ups.
    struct CatchUpBook {
        /// A catch-up is running (or requested and about to run): live events are held.
        var running = false
        /// Another gap happened while one ran: run again when it ends.
        var again: CatchUpReason?
        /// The running catch-up follows another without the held events having been released.
        var chained = false
        /// The first connection's catch-up was requested.
        var started = false
        /// Live envelopes held back while a catch-up runs, in arrival order.
        var held: [EventEnvelope] = []
        /// Values delivered live since the checkpoint (two equal events are two deliveries).
        var delivered = Fingerprints()
        var deliveredTotal = 0
        /// Values the running (or last) catch-up delivered, to recognise their live copies.
        var caughtUp = Fingerprints()
        /// Values the catch-up before delivered; forgotten when the next one starts.
        var caughtUpBefore = Fingerprints()
        /// When ``run()`` started: the first catch-up starts there when the store holds no
        /// checkpoint.
        var startedAt = Date()
        /// When the attempt that made the current connection started: events published before
        /// it cannot arrive live on it.
        var liveSince = Date()
        /// When the latest connection attempt started.
        var attemptStartedAt: Date?

        mutating func connectionOpened() {
            liveSince = attemptStartedAt ?? Date()
            attemptStartedAt = nil
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
        guard !catchUpBook.running else {
            catchUpBook.again = catchUpBook.again ?? reason
            return
        }
        catchUpBook.running = true
        logger.debug("catching up", metadata: ["switchboard.catchUp.reason": "\(reason)"])
        catchUpRequests.yield(reason)
    }

    /// Holds a live envelope back while a catch-up runs; false when it should be delivered now.
    func holdWhileCatchingUp(_ envelope: EventEnvelope) -> Bool {
        guard catchUpBook.running else { return false }
        catchUpBook.held.append(envelope)
        return true
    }

    /// Whether a decoded value should reach consumers, and the bookkeeping that goes with it.
    func admit(_ fingerprint: @autoclosure () -> Fingerprint, route: DeliveryRoute) -> Bool {
        guard let catchUp = configuration.catchUp else { return true }
        let mark = fingerprint()
        switch route {
        case .caughtUp:
            if catchUpBook.delivered.take(mark) {
                catchUpBook.deliveredTotal -= 1
                catchUpMetrics.duplicates.increment()
                return false
            }
            if mayArriveLive(mark) { catchUpBook.caughtUp.add(mark) }
            catchUpMetrics.delivered.increment()
            return true
        case .live, .released:
            // A live copy of an event a catch-up delivered can arrive after it, even after the
            // catch-up ended: the previous catch-up's deliveries are still recognised.
            if catchUpBook.caughtUp.take(mark) || catchUpBook.caughtUpBefore.take(mark) {
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
    }

    /// Whether a live copy of a caught-up value may arrive, so that it must be remembered to be
    /// recognised. On AppSync Events live values carry their timestamp and match exactly, so
    /// every caught-up value is remembered. Legacy GraphQL values carry none and match any
    /// caught-up value with equal fields: there only values published since the current
    /// connection's attempt started are remembered, or a value missed in the gap would swallow a
    /// later, equal live one (plan `true`, `false`, `true` would end on `false`). This compares
    /// the backend's timestamps with this machine's clock.
    func mayArriveLive(_ mark: Fingerprint) -> Bool {
        guard transportKind == .graphql, let published = mark.timestamp else { return true }
        // Timestamps have millisecond precision.
        return (published.timeIntervalSince1970 * 1000).rounded(.down)
            >= (catchUpBook.liveSince.timeIntervalSince1970 * 1000).rounded(.down)
    }

    /// Forgets what was delivered for the previous user.
    func resetCatchUp() {
        catchUpBook.delivered = Fingerprints()
        catchUpBook.deliveredTotal = 0
    }

    // MARK: Running

    /// Runs the catch-ups the notifier requests, one at a time, until the notifier stops.
    nonisolated func runCatchUps(_ requests: AsyncStream<CatchUpReason>) async {
        for await _ in requests {
            guard let (catchUp, since) = await catchUpStarting() else { continue }
            let broker = broker
            do {
                let summary = try await catchUp.source.catchUp(
                    since: since, store: catchUp.store,
                    progress: { progress in
                        broker.publish(CatchUpProgressEvent(
                            processed: progress.processed, total: progress.total, isFinal: progress.isFinal))
                    },
                    deliver: { events in await self.deliverCaughtUp(events) })
                await catchUpEnded(.success(summary))
            } catch {
                await catchUpEnded(.failure(error))
            }
        }
    }

    private func catchUpStarting() -> (CatchUp, SyncCheckpoint)? {
        guard lifecycle == .running, let catchUp = configuration.catchUp else { return nil }
        if !catchUpBook.chained {
            // Within a chain, the held events have yet to be matched against every catch-up of it.
            catchUpBook.caughtUpBefore = catchUpBook.caughtUp
            catchUpBook.caughtUp = Fingerprints()
        }
        return (catchUp, SyncCheckpoint(publishedAfter: catchUpBook.startedAt))
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
            deliverAppSync(envelope, document: JSONDocument(envelope.payload), to: descriptors, eventId: event.id, route: .caughtUp)
        }
    }

    private func catchUpEnded(_ result: Result<SyncSummary, any Error>) {
        guard lifecycle == .running else { return }
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
        for envelope in held { deliver(envelope, route: .released) }
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
