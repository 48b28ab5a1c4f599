import Foundation
import Logging
import SwitchboardCore

/// Fetches what the backend published while a client was not listening (contract §6): first over
/// the WebSocket sync stream (`/v1/sync/stream`), falling back to the REST endpoint
/// (`GET /sync/pull`) when the stream is missing, refuses, fails or drops.
///
/// ```swift
/// let client = SyncClient(configuration: .init(baseURL: url), connector: NIOWebSocketConnector())
/// let summary = try await client.catchUp(store: FileCheckpointStore(path: path)) { events in
///     for event in events { try await apply(event) }
/// }
/// ```
///
/// See <doc:CatchingUp> for how the checkpoint advances and what each failure does.
public struct SyncClient: Sendable {
    /// Where the endpoints are and how the client paces itself.
    public let configuration: Configuration
    let connector: any WebSocketConnector
    let http: any SyncHTTPClient
    let clock: any Clock<Duration>
    let logger: Logger

    /// Creates a client; nothing is sent until ``catchUp(since:store:progress:deliver:)``.
    /// - Parameters:
    ///   - configuration: The endpoints, batch size and progress interval.
    ///   - connector: Opens the sync stream's WebSocket (`WebSocketConnectors.platformDefault()` in production).
    ///   - http: Sends the REST fallback's requests; ``SyncHTTPClients/platformDefault()`` (URLSession
    ///     on Apple platforms, SwiftNIO on Linux) by default.
    ///   - clock: Paces progress updates and the stream's idle timeout.
    ///   - logger: Lifecycle at debug, frames at trace; never headers.
    public init(
        configuration: Configuration, connector: any WebSocketConnector,
        http: any SyncHTTPClient = SyncHTTPClients.platformDefault(), clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "switchboard.sync", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.configuration = configuration
        self.connector = connector
        self.http = http
        self.clock = clock
        self.logger = logger
    }

    /// Delivers every event published after the saved checkpoint, in order, each once, and saves
    /// the checkpoint after each delivered batch.
    ///
    /// It tries the sync stream first. If the stream endpoint is missing (`404`), refuses, sends
    /// something malformed, goes idle for ``Configuration/streamIdleTimeout`` or ends before
    /// `complete`, it continues over `GET /sync/pull` from the checkpoint saved last, in pages of
    /// ``Configuration/pullLimit``; events the stream already delivered are not delivered again.
    /// ``SyncSummary/streamFailure`` tells why the stream was left.
    ///
    /// - Parameters:
    ///   - since: Where to start when `store` holds no checkpoint yet (nil: from the oldest event
    ///     the server holds). A saved checkpoint always wins.
    ///   - store: Where the checkpoint is loaded from and saved to.
    ///   - progress: Receives (processed, total) at most once per
    ///     ``Configuration/progressInterval``, and always a last, exact update marked
    ///     ``SyncProgress/isFinal`` (also when the catch-up throws). See ``SyncProgressUpdates``.
    ///   - deliver: Receives the events batch by batch, in order. The checkpoint after a batch is
    ///     saved only once this returns; if it throws, the catch-up stops and rethrows.
    /// - Returns: What was delivered and how.
    /// - Throws: What `deliver` throws; ``/SwitchboardCore/SwitchboardError`` with
    ///   ``/SwitchboardCore/SwitchboardError/Code/checkpointExpired`` (the server dropped events after the
    ///   checkpoint), ``/SwitchboardCore/SwitchboardError/Code/syncRejected`` (the REST endpoint answered an error),
    ///   ``/SwitchboardCore/SwitchboardError/Code/protocolViolation`` (a malformed REST answer),
    ///   ``/SwitchboardCore/SwitchboardError/Code/network`` (no answer),
    ///   ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` (plaintext `http` to another machine, see
    ///   ``Configuration/allowsPlaintextToRemoteHosts``), or
    ///   ``/SwitchboardCore/SwitchboardError/Code/checkpointStorageFailed``; `CancellationError` when cancelled.
    ///   Everything delivered before an error stays delivered and checkpointed.
    public func catchUp(
        since: SyncCheckpoint? = nil,
        store: any CheckpointStore,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in },
        deliver: @escaping @Sendable ([SyncEvent]) async throws -> Void
    ) async throws -> SyncSummary {
        try await catchUp(
            from: since.map(SyncStart.checkpoint), store: store, backendClock: BackendClock(), progress: progress,
            deliver: deliver)
    }

    /// Delivers every event published after the saved checkpoint, or after `start` when the
    /// store holds none, in order, each once, and saves the checkpoint after each delivered batch;
    /// ``catchUp(since:store:progress:deliver:)`` describes the rest.
    ///
    /// Every answer that carries the server's time (`serverTime` on `sync.stream.start` and on
    /// each `GET /sync/pull` page) is recorded in `backendClock`, with the request's round trip.
    /// A start at ``SyncStart/backendTime(at:)`` is read from `backendClock`, at the early end of
    /// its uncertainty (nothing published just after the start is lost for the estimate's
    /// error). If no answer has carried the server's time yet, the request goes out with this
    /// device's clock, 5 s early, as a guess, and the first answer corrects it: when the
    /// backend's time at that moment is later than the guess, events published up to it are
    /// left out; when it is earlier, the request is made again from the right time before
    /// anything is delivered. A backend that sends no `serverTime` is asked from the device's
    /// clock less 5 s, and what was published before the device's reading is left out: the
    /// device's clock stands in for the backend's, uncorrected.
    ///
    /// - Parameters:
    ///   - start: Where to start when `store` holds no checkpoint (nil: from the oldest event the
    ///     server holds). A saved checkpoint always wins.
    ///   - store: Where the checkpoint is loaded from and saved to.
    ///   - backendClock: Where the server's time is recorded and a start in the backend's time
    ///     is read.
    ///   - progress: As in ``catchUp(since:store:progress:deliver:)``.
    ///   - deliver: As in ``catchUp(since:store:progress:deliver:)``.
    /// - Returns: What was delivered and how.
    /// - Throws: As ``catchUp(since:store:progress:deliver:)``.
    public func catchUp(
        from start: SyncStart?,
        store: any CheckpointStore,
        backendClock: BackendClock,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in },
        deliver: @escaping @Sendable ([SyncEvent]) async throws -> Void
    ) async throws -> SyncSummary {
        try configuration.checkTransportSecurity()
        var run = CatchUpRun(
            store: store, deliver: deliver, report: progress, stopwatch: Stopwatch(clock),
            interval: configuration.progressInterval, backendClock: backendClock)
        do {
            let summary = try await catchUp(from: start, run: &run)
            run.finish(succeeded: true)
            logger.debug("catch-up complete", metadata: [
                "switchboard.sync.events": "\(summary.deliveredEvents)",
                "switchboard.sync.pages": "\(summary.pullRequests)",
            ])
            return summary
        } catch {
            run.finish(succeeded: false)
            throw error
        }
    }

    private func catchUp(from start: SyncStart?, run: inout CatchUpRun) async throws -> SyncSummary {
        run.saved = try await run.load()
        if run.saved == nil { run.begin(at: start) }
        run.reportProgress()
        let streamFailure: SwitchboardError?
        do {
            do {
                try await stream(from: run.saved, run: &run)
            } catch is StartCorrected {
                logger.debug("the start was earlier on the backend's clock than guessed; asking again", metadata: [
                    "switchboard.sync.since": "\(run.saved?.rawValue ?? "")"])
                try await stream(from: run.saved, run: &run)
            }
            streamFailure = nil
        } catch let failure as StreamFailure {
            streamFailure = failure.error
            logger.debug("sync stream failed, falling back to REST", metadata: [
                "switchboard.sync.error": "\(failure.error)", "switchboard.sync.delivered": "\(run.processed)",
            ])
        }
        let pullRequests = streamFailure == nil ? 0 : try await pull(run: &run)
        return SyncSummary(
            deliveredEvents: run.processed, checkpoint: run.saved, streamFailure: streamFailure, pullRequests: pullRequests)
    }

    /// Reads an answer's `serverTime` (nil when absent); a malformed one is logged and ignored,
    /// and the catch-up goes on without it.
    func serverTime(_ text: String?, in answer: String) -> Date? {
        guard let text else { return nil }
        guard let time = ISO8601Timestamp.date(from: text) else {
            logger.warning("ignoring a malformed serverTime", metadata: [
                "switchboard.sync.answer": "\(answer)", "switchboard.sync.serverTime": "\(text.prefix(64))"])
            return nil
        }
        return time
    }

    func headers() async throws -> [(name: String, value: String)] {
        do {
            return try await configuration.headers()
        } catch let error as SwitchboardError {
            throw error
        } catch {
            throw SwitchboardError(code: .sessionExpired, message: "the sync request headers could not be made", cause: error)
        }
    }
}

/// What a finished catch-up did.
public struct SyncSummary: Sendable {
    /// Events handed to `deliver`, each once.
    public var deliveredEvents: Int
    /// The checkpoint saved last (the one the catch-up started from if nothing new was saved).
    public var checkpoint: SyncCheckpoint?
    /// Why the sync stream was left for the REST fallback; nil when the stream completed.
    public var streamFailure: SwitchboardError?
    /// How many `GET /sync/pull` requests the fallback made (0 when the stream completed).
    public var pullRequests: Int

    /// Creates a summary (for other ``CatchUpSource``s).
    /// - Parameters:
    ///   - deliveredEvents: Events handed to `deliver`.
    ///   - checkpoint: The checkpoint saved last.
    ///   - streamFailure: Why the sync stream was left, if it was.
    ///   - pullRequests: How many REST pages were fetched.
    public init(deliveredEvents: Int, checkpoint: SyncCheckpoint?, streamFailure: SwitchboardError? = nil, pullRequests: Int = 0) {
        self.deliveredEvents = deliveredEvents
        self.checkpoint = checkpoint
        self.streamFailure = streamFailure
        self.pullRequests = pullRequests
    }

    /// Whether the sync stream delivered everything, without the REST fallback.
    public var completedOverStream: Bool { streamFailure == nil }
}
