import Foundation
import Logging
import NIOCore
import HummingbirdWebSocket
import SwitchboardCore
import SwitchboardSync

/// Runs one sync stream connection: reads `sync.stream.request`, then answers `start`, the
/// batches and `complete` (or `error`) through the connection's ``ConnectionOutbox``, so the
/// emulator's connection faults (drop, abort, stall, latency) apply as on every endpoint.
/// One request per connection: the socket closes after `complete` or `error`.
struct SyncStreamDriver {
    static let endpoint = "/v1/sync/stream"

    let configuration: SwitchboardEmulator.Configuration
    let log: EventLog
    let registry: ConnectionRegistry
    let faults: FaultState
    let recorder: FrameRecorder?
    let clock: any Clock<Duration>
    /// The emulator's wall clock, for `serverTime`.
    let now: @Sendable () -> Date

    /// The server's time for an answer, when the configuration sends it.
    func serverTime() -> String? {
        configuration.sendsServerTime ? ISO8601Timestamp.string(from: now()) : nil
    }

    func run(channel: any Channel, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let outbox = ConnectionOutbox()
        let number = registry.register(outbox)
        var logger = configuration.logger
        logger[metadataKey: "emulator.connection"] = "\(number)"
        logger.debug("sync stream opened")
        defer {
            registry.remove(number)
            logger.debug("sync stream closed")
        }
        let recorder = self.recorder
        let record: @Sendable (FrameRecorder.Direction, String) -> Void = { direction, frame in
            recorder?.record(connection: number, endpoint: Self.endpoint, protocol: "", direction: direction, frame: frame)
        }
        let writer = ConnectionWriter(
            outbound: outbound, channel: channel, faults: faults, clock: clock, logger: logger, record: record)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.drain(outbox) }
            var iterator = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
            if case .text(let text)? = try await iterator.next() {
                logger.trace("in", metadata: ["emulator.frame": "\(text)"])
                record(.incoming, text)
                try await answer(text, outbox: outbox, logger: logger)
            }
            outbox.finish()
            try await group.waitForAll()
        }
    }

    /// Sleeps for the simulated round trip of the sync endpoints, if one is set.
    func simulateRoundTrip() async throws {
        if let latency = faults.syncRoundTripLatency { try await clock.sleep(for: latency) }
    }

    private func answer(_ text: String, outbox: ConnectionOutbox, logger: Logger) async throws {
        func fail(_ body: SyncErrorBody) {
            logger.debug("sync stream error", metadata: ["emulator.sync.code": "\(body.code ?? "")"])
            outbox.send(SyncStreamFrame.error(body).encoded())
            outbox.close(code: 1000, reason: "")
        }
        guard case .request(let since)? = try? SyncStreamFrame(decoding: text) else {
            return fail(SyncErrorBody(error: "expected a sync.stream.request frame", code: SyncErrorBody.invalidRequest))
        }
        let fault = faults.syncStream
        if case .refuse(let code, let message)? = fault?.kind {
            return fail(SyncErrorBody(error: message, code: code))
        }
        try await simulateRoundTrip()
        let slice: EventLog.Slice
        do {
            slice = try log.read(since: since, limit: nil)
        } catch {
            return fail(error.body)
        }
        var dropAfter: Int?
        if case .drop(let count)? = fault?.kind { dropAfter = count }
        // Read as the answer leaves, after the log was: a client reading it as the middle of its
        // round trip then errs late, never early (see `ConnectionWindow.mayCarry`).
        stream(slice, serverTime: serverTime(), dropAfter: dropAfter, outbox: outbox)
    }

    /// Queues `start`, the batches and `complete`; with `dropAfter`, aborts after that many events.
    private func stream(_ slice: EventLog.Slice, serverTime: String?, dropAfter: Int?, outbox: ConnectionOutbox) {
        let events = slice.events
        outbox.send(SyncStreamFrame.start(totalEvents: events.count, serverTime: serverTime).encoded())
        let batchSize = max(1, configuration.syncStreamBatchSize)
        let limit = min(events.count, dropAfter ?? events.count)
        for (batchIndex, start) in stride(from: 0, to: limit, by: batchSize).enumerated() {
            let end = min(start + batchSize, limit)
            let batch = Array(events[start..<end])
            let isLast = end == events.count
            outbox.send(SyncStreamFrame.batch(
                events: batch, batchIndex: batchIndex, isLast: isLast,
                checkpoint: batch.last.flatMap(log.checkpoint(after:))).encoded())
        }
        if dropAfter != nil {
            outbox.send(.abort)
            return
        }
        outbox.send(SyncStreamFrame.complete(processedEvents: events.count, newCheckpoint: slice.checkpoint).encoded())
        outbox.close(code: 1000, reason: "")
    }
}
