import SwitchboardCore

/// Published on the ``EventBroker`` when the app tells ``BackendNotifier`` it went to the
/// background (``BackendNotifier/suspend()``) or came back (``BackendNotifier/resume()``).
public struct AppLifecycleEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.appLifecycle"

    /// Where the app went.
    public enum Phase: String, Sendable, Hashable {
        /// To the background: the notifier closed its connection.
        case suspended
        /// Back to the foreground: the notifier connects again at once.
        case resumed
    }

    /// Where the app went.
    public var phase: Phase

    /// Creates the event.
    public init(phase: Phase) { self.phase = phase }
}

/// Published on the ``EventBroker`` for every network path the notifier's
/// ``NetworkPathMonitor`` reports, with what the notifier does about it.
public struct NetworkStatusChangedEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.networkStatus"

    /// What the notifier does about a path change.
    public enum Reaction: String, Sendable, Hashable {
        /// Nothing: a repeat, a change that does not matter, or nobody signed in, suspended,
        /// switching or not yet connected.
        case none
        /// The path is gone: the connection is closed and no attempt is made until it returns.
        case disconnected
        /// The path is back: the notifier connects at once.
        case reconnecting
        /// The path changed interface, or is the first the monitor reported (which may be a
        /// change the app did not report the start of): the notifier checks the connection at once.
        case checkingConnection
    }

    /// The path now.
    public var path: NetworkPath
    /// The path before, if one was reported.
    public var previous: NetworkPath?
    /// What the notifier does about it.
    public var reaction: Reaction

    /// Creates the event.
    public init(path: NetworkPath, previous: NetworkPath?, reaction: Reaction) {
        self.path = path
        self.previous = previous
        self.reaction = reaction
    }
}

/// What ``BackendNotifier/didReceiveMemoryWarning()`` freed, or set about freeing.
public struct MemoryTrim: Sendable, Equatable, CustomStringConvertible {
    /// Records dropped from ``EventBroker/history``.
    public var historyRecords: Int
    /// Records dropped from ``EventBroker/deadLetters``.
    public var deadLetters: Int
    /// Fingerprints of live deliveries that catch-up remembered, to be dropped once the catch-up
    /// the warning started has moved the checkpoint past them (0 when catch-up is off, or
    /// nothing was remembered).
    public var rememberedDeliveries: Int
    /// Fingerprints of the previous catch-up's events, kept to recognise late live copies, dropped
    /// because no catch-up is in progress.
    public var caughtUpFingerprints: Int

    /// Creates a report.
    public init(historyRecords: Int = 0, deadLetters: Int = 0, rememberedDeliveries: Int = 0, caughtUpFingerprints: Int = 0) {
        self.historyRecords = historyRecords
        self.deadLetters = deadLetters
        self.rememberedDeliveries = rememberedDeliveries
        self.caughtUpFingerprints = caughtUpFingerprints
    }

    public var description: String {
        "MemoryTrim(history: \(historyRecords), deadLetters: \(deadLetters), " +
            "rememberedDeliveries: \(rememberedDeliveries), caughtUpFingerprints: \(caughtUpFingerprints))"
    }
}

/// Published on the ``EventBroker`` when ``BackendNotifier/didReceiveMemoryWarning()`` ran.
public struct MemoryWarningEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.memoryWarning"

    /// What was freed, or set about freeing.
    public var trimmed: MemoryTrim

    /// Creates the event.
    public init(trimmed: MemoryTrim) { self.trimmed = trimmed }
}

/// Published on the ``EventBroker`` when a catch-up starts (contract §6): after a gap, on start,
/// or to move the checkpoint on. ``CatchUpProgressEvent`` follows while it runs, then
/// ``DataSyncCompletedEvent`` or ``DataSyncFailedEvent``.
public struct DataSyncStartedEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.dataSyncStarted"

    /// Why it runs, such as `reconnected`, `start` or `remembered deliveries full`.
    public var reason: String

    /// Creates the event.
    public init(reason: String) { self.reason = reason }
}

/// The progress of a catch-up under the name seed 003 gives it.
public typealias DataSyncProgressEvent = CatchUpProgressEvent

extension CatchUpProgressEvent {
    /// How far the catch-up is, from 0 to 100, once the server has said how many events there are.
    public var percentage: Double? {
        guard let total else { return isFinal ? 100 : nil }
        guard total > 0 else { return 100 }
        return min(100, Double(processed) * 100 / Double(total))
    }
}

/// Published on the ``EventBroker`` when a catch-up has delivered everything it fetched.
public struct DataSyncCompletedEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.dataSyncCompleted"

    /// Why it ran.
    public var reason: String
    /// Events the catch-up fetched from the backend's log.
    public var fetchedEvents: Int
    /// Of those, the events that reached consumers.
    public var deliveredEvents: Int
    /// Of those, the events skipped because they had already been delivered live.
    public var skippedEvents: Int
    /// REST pages fetched after the sync stream failed (0 when the stream carried it all).
    public var pullRequests: Int
    /// Whether the sync stream carried it all, without the REST fallback.
    public var completedOverStream: Bool
    /// How many attempts it took (1 when the first succeeded).
    public var attempts: Int
    /// How long it took, on ``BackendNotifier/CatchUp/clock``, from its start to the last delivery.
    public var duration: Duration

    /// Creates the event.
    public init(reason: String, fetchedEvents: Int, deliveredEvents: Int, skippedEvents: Int, pullRequests: Int,
                completedOverStream: Bool, attempts: Int, duration: Duration) {
        self.reason = reason
        self.fetchedEvents = fetchedEvents
        self.deliveredEvents = deliveredEvents
        self.skippedEvents = skippedEvents
        self.pullRequests = pullRequests
        self.completedOverStream = completedOverStream
        self.attempts = attempts
        self.duration = duration
    }
}

/// Published on the ``EventBroker`` when a catch-up failed for good (after its retries). The
/// error also reaches ``BackendNotifier/errors()``.
public struct DataSyncFailedEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.dataSyncFailed"

    /// Why it ran.
    public var reason: String
    /// Why it failed.
    public var error: SwitchboardError
    /// How many attempts were made.
    public var attempts: Int

    /// Creates the event.
    public init(reason: String, error: SwitchboardError, attempts: Int) {
        self.reason = reason
        self.error = error
        self.attempts = attempts
    }
}
