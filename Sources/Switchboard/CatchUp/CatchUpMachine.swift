import Foundation
import SwitchboardCore
import SwitchboardSync

/// Catch-up as a plain state machine: what to hold back, when to fetch, what a fetched or live
/// value is a copy of, and what to release. It performs no I/O and reads no clock: the notifier
/// feeds it facts (connections opening and closing, acknowledgements, live envelopes, decoded
/// values, fetch results, deadlines), with the time they happened, and carries out the
/// ``Action``s it returns.
///
/// Its moments are `Duration`s on the notifier's monotonic timeline (its ``BackendClock``), never
/// this device's wall clock: the log's times are the backend's, and are compared with the
/// timeline's moments only through ``backendTime``, what the sync answers' `serverTime` taught.
///
/// While a catch-up is requested or running, live envelopes are held; the fetched events are
/// delivered first, in publishing order, then the held ones, so each stream stays in order. A
/// value already delivered live is not delivered again when a catch-up fetches it, and the live
/// copy of a fetched value is recognised: by its timestamp when it carries one (AppSync Events),
/// otherwise by order and by the connection it arrived on (``LegacyCopies``).
struct CatchUpMachine {
    let settings: Settings

    // MARK: State

    /// A catch-up is requested or running: live events are held.
    private(set) var running = false
    /// Requested, and waiting for every subscription to be acknowledged on the current
    /// connection before reading the log.
    private(set) var waiting: Reason?
    /// Handed out as a ``Action/fetch(_:)`` and not yet ended.
    private(set) var inFlight = false
    /// Counts the waits for acknowledgements, so that a deadline finds its own.
    private var waits = 0
    /// Another gap happened while one ran: run again when it ends.
    private var again: Reason?
    /// The running catch-up follows another without the held events having been released.
    private var chained = false
    /// The first connection's catch-up was requested.
    private var started = false
    /// When the notifier started: the first catch-up starts there without a checkpoint.
    private let startedAt: Duration
    /// The backend's time at the timeline's moments, as the sync answers taught it.
    private(set) var backendTime: BackendTimeEstimate
    private(set) var held: [Held] = []
    /// What the held envelopes cost, in bytes (``EventEnvelope/retainedBytes``).
    private(set) var heldBytes = 0
    /// Values delivered live since the checkpoint (two equal events are two deliveries).
    private var delivered = Fingerprints()
    /// The running catch-up's fetched values that reached consumers, and those skipped.
    private(set) var fetchedDelivered = 0
    private(set) var fetchedSkipped = 0
    /// Values the running (or last) catch-up delivered, to recognise live copies with a timestamp.
    private var caughtUp = Fingerprints()
    /// Values the catch-up before delivered; forgotten when the next one starts.
    private var caughtUpBefore = Fingerprints()
    /// Values catch-ups delivered, to recognise live copies without a timestamp.
    private var legacyCopies = LegacyCopies()
    /// The number of the current (or last) connection; each new one counts up.
    private(set) var connection = 0
    /// When each connection whose live events may still need matching was open.
    private var windows: [Int: ConnectionWindow] = [:]
    /// The connection on which held envelopes were last dropped and a new one asked for.
    private var reconnectionAskedOn: Int?

    init(settings: Settings, startedAt: Duration, backendTime: BackendTimeEstimate) {
        self.settings = settings
        self.startedAt = startedAt
        self.backendTime = backendTime
    }

    /// A sync answer taught more of the backend's clock.
    mutating func learned(_ backendTime: BackendTimeEstimate) {
        self.backendTime = backendTime
    }

    /// How many live deliveries are remembered since the checkpoint.
    var rememberedDeliveries: Int { delivered.count }

    // MARK: Connections

    /// A connection opened at `date`: when the transport reported it connected, before it
    /// subscribed on it, so no event logged earlier can arrive on it. (Not when its attempt
    /// began: an event logged while the socket was being made is missed, and counting it as
    /// carried would take a later live event with equal fields for its copy.)
    mutating func connectionOpened(at moment: Duration) {
        connection += 1
        // Without held events, live ones arrive on this connection and later ones only.
        if !running { windows.removeAll() }
        windows[connection] = ConnectionWindow(opened: moment)
    }

    /// The subscription serving `streams` was started on the current connection at `moment`
    /// (by a transport that acknowledges no subscription: as its start went out). Only the first
    /// start of a stream on a connection counts.
    mutating func subscriptionStarted(_ streams: some Sequence<StreamID>, at moment: Duration) {
        guard windows[connection] != nil else { return }
        for stream in streams where windows[connection]?.started[stream] == nil {
            windows[connection]?.started[stream] = moment
        }
    }

    /// The current connection was seen lost at `moment` (kept if it was seen earlier).
    mutating func connectionClosed(at moment: Duration) {
        if windows[connection]?.closed == nil { windows[connection]?.closed = moment }
    }

    /// Connected again: after `gap`, or for the first time (a catch-up from the start).
    mutating func connected(after gap: BackendNotifier.DeliveryGap?, readiness: Readiness) -> [Action] {
        let alreadyWaiting = waiting != nil
        var actions: [Action] = []
        if let gap {
            actions.append(.announceGap(gap))
            actions += request(.gap(gap), readiness: readiness)
        } else if !started {
            actions += request(.start, readiness: readiness)
        }
        // A catch-up still waiting from a previous connection waits for this one's.
        if alreadyWaiting { actions += timeAcknowledgements(readiness) }
        return actions
    }

    /// Asks for a catch-up.
    mutating func request(_ reason: Reason, readiness: Readiness) -> [Action] {
        started = true
        if inFlight {
            again = again ?? reason
            return []
        }
        // A catch-up that has yet to start reads the log later anyway: it covers this one too.
        guard waiting == nil else { return [] }
        running = true
        waiting = reason
        return startIfReady(readiness) + timeAcknowledgements(readiness)
    }

    /// Something the start waits for changed (an acknowledgement, a rejection, a new plan).
    mutating func readinessChanged(_ readiness: Readiness) -> [Action] { startIfReady(readiness) }

    /// The deadline of wait number `wait` passed: start anyway, if it is still the current one.
    mutating func acknowledgementDeadlinePassed(_ wait: Int, readiness: Readiness) -> [Action] {
        // Acknowledged meanwhile, or not connected: the next connection times it afresh.
        guard wait == waits, waiting != nil, readiness.connected else { return [] }
        return [.acknowledgementsOverdue] + startIfReady(readiness, overdue: true)
    }

    private mutating func timeAcknowledgements(_ readiness: Readiness) -> [Action] {
        guard waiting != nil, readiness.connected else { return [] }
        waits += 1
        return [.timeAcknowledgements(wait: waits)]
    }

    private mutating func startIfReady(_ readiness: Readiness, overdue: Bool = false) -> [Action] {
        guard let reason = waiting, readiness.connected, overdue || readiness.settled else { return [] }
        waiting = nil
        inFlight = true
        if !chained {
            // Within a chain, the held events have yet to be matched against every catch-up of it.
            caughtUpBefore = caughtUp
            caughtUp = Fingerprints()
        }
        // Only a catch-up that follows a (re)connection races the subscriptions being set up.
        // Acknowledgements make the wait unneeded only where live copies are recognised by the
        // log's time: without it, a copy is matched by its fields in log order, and an event
        // logged just before the server had the subscription (fetched, never live) can be taken
        // for the copy of a later live one with equal fields when the log is read at once. After
        // the wait, the live copies between the two outnumber such a run of equal values.
        let settles = reason.followsConnection
            && (!readiness.acknowledgesSubscriptions || !readiness.liveEventsCarryLogTimes)
            && settings.subscriptionSettleTime > .zero
        return [.fetch(Order(reason: reason, sessionStart: startedAt, settle: settles ? settings.subscriptionSettleTime : nil))]
    }

    // MARK: Events

    /// Holds a live envelope back while a catch-up runs (`held` false: deliver it now). When
    /// this one would bring the held envelopes past ``Settings/heldEnvelopeBytes``, it and
    /// those held so far are dropped, and the machine asks for a new connection
    /// (``Action/reconnect``): what they carried is in the log, and the reconnection's gap makes
    /// the catch-up run once more to fetch it. A new connection, rather than holding on the same
    /// one, keeps the legacy copies exact: what the dropped envelopes' connection carried no
    /// longer arrives, so their fetched events never wait for a live copy. The catch-up runs
    /// again even if no reconnection follows (one that has yet to read the log reads it later
    /// anyway).
    mutating func hold(_ envelope: EventEnvelope) -> (held: Bool, actions: [Action]) {
        guard running else { return (false, []) }
        let bytes = envelope.retainedBytes
        guard heldBytes + bytes > settings.heldEnvelopeBytes else {
            held.append(Held(envelope: envelope, connection: connection))
            heldBytes += bytes
            return (true, [])
        }
        var actions: [Action] = [.evicted(.heldEnvelopes, count: held.count + 1)]
        held.removeAll()
        heldBytes = 0
        if inFlight { again = again ?? .heldEnvelopesFull }
        // Once per connection: envelopes it still sends before it closes are held afresh.
        if reconnectionAskedOn != connection {
            reconnectionAskedOn = connection
            actions.append(.reconnect)
        }
        return (true, actions)
    }

    /// Whether a decoded value should reach consumers, with what that starts (a catch-up when
    /// the remembered deliveries are full). `now` places a value that arrived on a connection
    /// the machine never saw open; it and `readiness` are read only when needed, not for every
    /// value.
    mutating func admit(
        _ mark: Fingerprint, stream: StreamID, route: Route, now: @autoclosure () -> Duration,
        readiness: @autoclosure () -> Readiness
    ) -> (admitted: Bool, actions: [Action]) {
        let arrivedOn: Int
        switch route {
        case .caughtUp(let loggedAt):
            if delivered.take(mark) {
                fetchedSkipped += 1
                return (false, [])
            }
            fetchedDelivered += 1
            // Its live copy may carry the timestamp (AppSync Events) or not (the legacy contract).
            caughtUp.add(mark)
            legacyCopies.fetched(mark, stream: stream, loggedAt: loggedAt)
            return (true, boundCaughtUp())
        case .live:
            arrivedOn = connection
        case .released(let number):
            arrivedOn = number
        }
        // A live copy of a value a catch-up delivered can arrive after it, even after the
        // catch-up ended: the previous catch-up's deliveries are still recognised.
        let isCopy =
            if mark.timestamp != nil {
                caughtUp.take(mark) || caughtUpBefore.take(mark)
            } else {
                legacyCopies.takeCopy(
                    mark.key, stream: stream, arrivedOn: windows[arrivedOn] ?? ConnectionWindow(opened: now()),
                    backendTime: backendTime)
            }
        if isCopy { return (false, []) }
        delivered.add(mark)
        var actions: [Action] = []
        // A catch-up that moves the checkpoint forgets them; only when none could (it failed, or
        // runs while the held envelopes are released) do they grow past the bound, and at twice
        // the bound the surplus goes.
        if delivered.bytes - settings.rememberedDeliveryBytes > settings.rememberedDeliveryBytes {
            actions.append(.evicted(.rememberedDeliveries, count: delivered.evict(downTo: settings.rememberedDeliveryBytes)))
        }
        let full = delivered.count >= settings.rememberedDeliveries || delivered.bytes >= settings.rememberedDeliveryBytes
        guard full, !running else { return (true, actions) }
        return (true, actions + request(.rememberedDeliveriesFull, readiness: readiness()))
    }

    /// Keeps the fingerprints of caught-up events within ``Settings/caughtUpBytes``, for each of
    /// the two ways copies are recognised: by timestamp, those of the catch-up before the last go
    /// first, then the last one's (in no particular order); by order, the oldest. Every caught-up
    /// event is kept both ways, so the count is the larger of the two.
    private mutating func boundCaughtUp() -> [Action] {
        let limit = settings.caughtUpBytes
        var byTimestamp = 0
        if caughtUp.bytes + caughtUpBefore.bytes > limit {
            byTimestamp += caughtUpBefore.evict(downTo: max(0, limit - caughtUp.bytes))
            byTimestamp += caughtUp.evict(downTo: limit)
        }
        let evicted = max(byTimestamp, legacyCopies.evict(downTo: limit))
        return evicted > 0 ? [.evicted(.caughtUpFingerprints, count: evicted)] : []
    }

    // MARK: Fetch results

    /// The fetch failed on its `attempt` (from 1): try again, or give up. Only a failure to
    /// reach the log (`transient`) is worth another try: an expired checkpoint, a refusal or a
    /// store that cannot be written fails the same way again.
    func failed(attempt: Int, transient: Bool) -> FailureDecision {
        guard transient, attempt <= settings.retries else { return .giveUp }
        return .retry(after: settings.retryDelay * (1 << (attempt - 1)), attempt: attempt + 1)
    }

    /// The running catch-up ended (`succeeded`: it moved the checkpoint). Returns how many
    /// fetched values it delivered and skipped, and what follows: the next catch-up of a
    /// chain, or the release of the held envelopes.
    mutating func ended(succeeded: Bool, now: Duration, readiness: Readiness) -> (delivered: Int, skipped: Int, actions: [Action]) {
        let counts = (fetchedDelivered, fetchedSkipped)
        fetchedDelivered = 0
        fetchedSkipped = 0
        inFlight = false
        // Everything up to the new checkpoint is accounted for; what was delivered live after it
        // is remembered again as the held envelopes are released.
        if succeeded { delivered = Fingerprints() }
        running = false
        if let next = again {
            // Another gap opened while this one was being filled: the held envelopes may follow a
            // hole only the next catch-up fills, so they stay held until it has.
            again = nil
            chained = true
            return (counts.0, counts.1, request(next, readiness: readiness))
        }
        chained = false
        let released = held
        held.removeAll()
        heldBytes = 0
        guard !released.isEmpty else {
            forgetEarlierConnections(now: now)
            return (counts.0, counts.1, [])
        }
        // The held envelopes arrived on the connections they name, perhaps earlier ones: they are
        // matched against those windows and the fetched events first, and only then forgotten
        // (``releaseDelivered(now:)``).
        return (counts.0, counts.1, [.release(released)])
    }

    /// The envelopes of a ``Action/release(_:)`` have been delivered.
    mutating func releaseDelivered(now: Duration) {
        forgetEarlierConnections(now: now)
    }

    /// From now on live events arrive on the current connection (or later ones) only: the
    /// windows of earlier ones, and the fetched events none of the remaining can carry, go.
    private mutating func forgetEarlierConnections(now: Duration) {
        let current = windows[connection] ?? ConnectionWindow(opened: now)
        windows = windows.filter { $0.key >= connection }
        legacyCopies.forget(notCarriedAfter: current.opened, backendTime: backendTime)
    }

    // MARK: Memory

    /// The system is short of memory. Unless a catch-up runs, forgets the fingerprints of the
    /// catch-up before the last one, and (signed in) asks for a catch-up that moves the
    /// checkpoint past the remembered live deliveries, which its success drops. Returns how many
    /// of each there were.
    mutating func trimForMemory(signedIn: Bool, readiness: Readiness)
        -> (caughtUpFingerprints: Int, rememberedDeliveries: Int, actions: [Action])
    {
        guard !running else { return (0, 0, []) }
        let fingerprints = caughtUpBefore.count
        caughtUpBefore = Fingerprints()
        guard delivered.count > 0, signedIn else { return (fingerprints, 0, []) }
        return (fingerprints, delivered.count, request(.rememberedDeliveriesFull, readiness: readiness))
    }

    // MARK: Sign-out

    /// Sign-out or another user: forgets the previous user's held envelopes, a catch-up still
    /// waiting to start, and what catch-ups fetched, so that nothing of theirs reaches the next
    /// user's consumers. A catch-up in flight ends by itself and releases what is held by then.
    mutating func forgetUser() {
        delivered = Fingerprints()
        held.removeAll()
        heldBytes = 0
        waiting = nil
        again = nil
        chained = false
        running = inFlight
        caughtUp = Fingerprints()
        caughtUpBefore = Fingerprints()
        legacyCopies = LegacyCopies()
    }
}
