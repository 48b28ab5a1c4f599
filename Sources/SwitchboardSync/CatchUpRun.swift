import Foundation
import SwitchboardCore

/// The state of one catch-up across the stream and the REST fallback: what was delivered since
/// the last saved checkpoint (so nothing is delivered twice when the fallback resumes there),
/// the counts, and the progress throttle.
struct CatchUpRun {
    let store: any CheckpointStore
    let deliver: @Sendable ([SyncEvent]) async throws -> Void
    let report: @Sendable (SyncProgress) -> Void
    let stopwatch: Stopwatch
    /// Where the server's time of each answer is recorded.
    let backendClock: BackendClock
    private var throttle: ProgressThrottle
    /// Events delivered.
    private(set) var processed = 0
    /// The expected number of events, once the stream's `start` said it.
    var total: Int?
    /// The checkpoint saved last, or where the catch-up started.
    var saved: SyncCheckpoint?
    /// The ids delivered after ``saved``: a resumption from ``saved`` sees them again.
    private var deliveredSinceSave: Set<String> = []
    /// A start in the backend's time that had to be guessed from this device's clock (no
    /// answer had carried the server's time yet): the moment, and the time guessed. The first
    /// answer with `serverTime` corrects it.
    private var guessedStart: (moment: Duration, time: Date)?
    /// Events published at or before this backend time are from before the start: the request
    /// went out with an earlier guess, so the server sends them, and they are left out.
    private var publishedThrough: Date?
    /// Events the server sent that were published before a corrected start.
    private(set) var beforeStart = 0

    init(
        store: any CheckpointStore, deliver: @escaping @Sendable ([SyncEvent]) async throws -> Void,
        report: @escaping @Sendable (SyncProgress) -> Void, stopwatch: Stopwatch, interval: Duration,
        backendClock: BackendClock
    ) {
        self.store = store
        self.deliver = deliver
        self.report = report
        self.stopwatch = stopwatch
        self.backendClock = backendClock
        self.throttle = ProgressThrottle(interval: interval)
    }

    /// How much earlier than the device's clock says a guessed start is asked for: a device a
    /// little off (half a second is ordinary) then gets a few extra events to leave out rather
    /// than a second request; only one ahead of the backend by more asks again.
    static let guessMargin: Duration = .seconds(5)

    /// Where to start, the store holding no checkpoint. A start in the backend's time is read
    /// from the backend clock, at the early end of its uncertainty (an event published in the
    /// first moments of a session is never lost for the estimate's error; one published up to
    /// that much before it may be delivered). Before any answer carried the server's time, the
    /// reading is this device's clock: the request asks from ``guessMargin`` earlier, and the
    /// first answer corrects it.
    mutating func begin(at start: SyncStart?) {
        switch start {
        case nil:
            saved = nil
        case .checkpoint(let checkpoint):
            saved = checkpoint
        case .backendTime(let moment):
            let reading = backendClock.reading(at: moment)
            if reading.fromServer {
                saved = SyncCheckpoint(publishedAfter: Self.earliest(reading))
            } else {
                let guess = reading.time.addingTimeInterval(-Self.guessMargin.seconds)
                saved = SyncCheckpoint(publishedAfter: guess)
                guessedStart = (moment, guess)
            }
        }
    }

    /// The early end of a reading: its time less its uncertainty.
    static func earliest(_ reading: BackendTimeEstimate.Reading) -> Date {
        reading.time.addingTimeInterval(-reading.uncertainty.seconds)
    }

    /// An answer arrived, carrying the server's time (`serverTime`, nil when it carried none),
    /// for a request sent at moment `sent`: records the sample, and corrects a guessed start.
    /// Only the first answer can correct it (nothing was delivered before it).
    /// - Returns: Whether the request must be made again from ``saved``: the start turned out
    ///   earlier than guessed, so the server left out events the catch-up needs.
    mutating func answered(serverTime: Date?, sent: Duration) -> Bool {
        let guess = guessedStart
        guessedStart = nil
        guard let serverTime else {
            // A backend without `serverTime`: the device's own reading is all there is. The request
            // asked from the margin earlier; what was published before the reading is left out.
            if let guess { publishedThrough = guess.time.addingTimeInterval(Self.guessMargin.seconds) }
            return false
        }
        backendClock.record(serverTime: serverTime, sent: sent, received: backendClock.now())
        guard let guess else { return false }
        let start = Self.earliest(backendClock.reading(at: guess.moment))
        if start < guess.time {
            saved = SyncCheckpoint(publishedAfter: start)
            return true
        }
        publishedThrough = start
        return false
    }

    func load() async throws -> SyncCheckpoint? {
        do {
            return try await store.load()
        } catch {
            throw Self.storageError(error, "load")
        }
    }

    /// Delivers the events not delivered yet, then saves `checkpoint` (if any) and reports progress.
    mutating func deliver(_ events: [SyncEvent], then checkpoint: SyncCheckpoint?) async throws {
        var seen = deliveredSinceSave
        var fresh = events.filter { seen.insert($0.id).inserted }
        if let publishedThrough {
            let count = fresh.count
            fresh.removeAll { $0.publishedAt <= publishedThrough }
            beforeStart += count - fresh.count
        }
        if !fresh.isEmpty { try await deliver(fresh) }
        deliveredSinceSave = seen
        processed += fresh.count
        if let checkpoint {
            do {
                try await store.save(checkpoint)
            } catch {
                throw Self.storageError(error, "save")
            }
            saved = checkpoint
            deliveredSinceSave.removeAll()
        }
        reportProgress()
    }

    /// Reports progress, if the throttle lets it through.
    mutating func reportProgress() {
        // Events left out for being from before the start were processed too.
        let processed = processed + beforeStart
        let progress = SyncProgress(processed: processed, total: total.map { max($0, processed) })
        if let update = throttle.offer(progress, at: stopwatch.elapsed()) { report(update) }
    }

    /// Reports the exact, final progress.
    mutating func finish(succeeded: Bool) {
        let processed = processed + beforeStart
        let total = succeeded ? processed : self.total.map { max($0, processed) }
        report(SyncProgress(processed: processed, total: total, isFinal: true))
    }

    private static func storageError(_ error: any Error, _ verb: String) -> any Error {
        if error is SwitchboardError || error is CancellationError { return error }
        return SwitchboardError(code: .checkpointStorageFailed, message: "the checkpoint store failed to \(verb)", cause: error)
    }
}
