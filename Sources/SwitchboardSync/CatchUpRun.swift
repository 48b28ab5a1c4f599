import SwitchboardCore

/// The state of one catch-up across the stream and the REST fallback: what was delivered since
/// the last saved checkpoint (so nothing is delivered twice when the fallback resumes there),
/// the counts, and the progress throttle.
struct CatchUpRun {
    let store: any CheckpointStore
    let deliver: @Sendable ([SyncEvent]) async throws -> Void
    let report: @Sendable (SyncProgress) -> Void
    let stopwatch: Stopwatch
    private var throttle: ProgressThrottle
    /// Events delivered.
    private(set) var processed = 0
    /// The expected number of events, once the stream's `start` said it.
    var total: Int?
    /// The checkpoint saved last, or where the catch-up started.
    var saved: SyncCheckpoint?
    /// The ids delivered after ``saved``: a resumption from ``saved`` sees them again.
    private var deliveredSinceSave: Set<String> = []

    init(
        store: any CheckpointStore, deliver: @escaping @Sendable ([SyncEvent]) async throws -> Void,
        report: @escaping @Sendable (SyncProgress) -> Void, stopwatch: Stopwatch, interval: Duration
    ) {
        self.store = store
        self.deliver = deliver
        self.report = report
        self.stopwatch = stopwatch
        self.throttle = ProgressThrottle(interval: interval)
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
        let fresh = events.filter { seen.insert($0.id).inserted }
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
        let progress = SyncProgress(processed: processed, total: total.map { max($0, processed) })
        if let update = throttle.offer(progress, at: stopwatch.elapsed()) { report(update) }
    }

    /// Reports the exact, final progress.
    mutating func finish(succeeded: Bool) {
        let total = succeeded ? processed : self.total.map { max($0, processed) }
        report(SyncProgress(processed: processed, total: total, isFinal: true))
    }

    private static func storageError(_ error: any Error, _ verb: String) -> any Error {
        if error is SwitchboardError || error is CancellationError { return error }
        return SwitchboardError(code: .checkpointStorageFailed, message: "the checkpoint store failed to \(verb)", cause: error)
    }
}
