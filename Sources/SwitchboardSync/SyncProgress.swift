/// How far a catch-up has got: events delivered, out of how many.
public struct SyncProgress: Hashable, Sendable, CustomStringConvertible {
    /// Events delivered so far.
    public var processed: Int
    /// How many events the catch-up expects, or nil while unknown (the REST fallback does not
    /// say how many events remain, so a catch-up that never reached the stream's `start` has no
    /// total until it ends).
    public var total: Int?
    /// True for the last update of a catch-up, which is exact: ``processed`` is every event
    /// delivered and, after a success, ``total`` equals it.
    public var isFinal: Bool

    /// Creates a progress value.
    /// - Parameters:
    ///   - processed: Events delivered so far.
    ///   - total: The expected number of events, if known.
    ///   - isFinal: Whether this is the catch-up's last update.
    public init(processed: Int, total: Int?, isFinal: Bool = false) {
        self.processed = processed
        self.total = total
        self.isFinal = isFinal
    }

    public var description: String {
        "\(processed)/\(total.map(String.init) ?? "?")\(isFinal ? " (final)" : "")"
    }
}

/// Progress updates of one catch-up as an `AsyncSequence` with a single consumer; it ends after
/// the final update.
///
/// ```swift
/// let (updates, report) = SyncProgressUpdates.makeStream()
/// async let summary = client.catchUp(store: store, progress: report) { events in … }
/// for await update in updates { print(update) }
/// ```
public struct SyncProgressUpdates: AsyncSequence, Sendable {
    public typealias Element = SyncProgress

    private let stream: AsyncStream<SyncProgress>

    /// Makes a sequence and the callback that feeds it; pass the callback as the `progress` of
    /// ``SyncClient/catchUp(since:store:progress:deliver:)``. The sequence finishes after the
    /// update marked ``SyncProgress/isFinal``.
    public static func makeStream() -> (updates: SyncProgressUpdates, report: @Sendable (SyncProgress) -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncProgress.self)
        return (SyncProgressUpdates(stream: stream), { progress in
            continuation.yield(progress)
            if progress.isFinal { continuation.finish() }
        })
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var base: AsyncStream<SyncProgress>.AsyncIterator
        public mutating func next() async -> SyncProgress? { await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}

/// Decides which progress updates to pass on: at most one per `interval` of elapsed time (the
/// first at once), never the same value twice, and always the final one. Pure: time is passed in.
struct ProgressThrottle {
    let interval: Duration
    private var lastSent: (progress: SyncProgress, at: Duration)?

    init(interval: Duration) { self.interval = interval }

    /// The update to pass on now, or nil to hold it back.
    mutating func offer(_ progress: SyncProgress, at elapsed: Duration) -> SyncProgress? {
        if let lastSent {
            guard progress.isFinal || (progress != lastSent.progress && elapsed - lastSent.at >= interval) else {
                return nil
            }
        }
        lastSent = (progress, elapsed)
        return progress
    }
}
