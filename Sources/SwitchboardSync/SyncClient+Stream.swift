import Foundation
import Logging
import SwitchboardCore

/// The first answer put the start earlier than the request asked: the stream is made again.
struct StartCorrected: Error {}

/// Why the sync stream was given up; the catch-up goes on over REST.
struct StreamFailure: Error {
    var error: SwitchboardError
    init(_ code: SwitchboardError.Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        error = SwitchboardError(code: code, message: message, cause: cause)
    }
}

extension SyncClient {
    /// Runs one sync stream from `checkpoint` to `complete`.
    /// - Throws: ``StreamFailure`` when the stream is to be left for REST; anything else
    ///   (delivery, storage, an expired checkpoint, cancellation) ends the catch-up.
    func stream(from checkpoint: SyncCheckpoint?, run: inout CatchUpRun) async throws {
        let connection: any WebSocketConnection
        do {
            connection = try await connector.connect(WebSocketRequest(url: configuration.streamURL, headers: headers()))
        } catch let error as WebSocketHandshakeError {
            let missing = error.status == 404 ? "the sync stream endpoint does not exist: " : ""
            throw StreamFailure(.network, "\(missing)\(error)", cause: error)
        } catch let error as SwitchboardError where error.code == .network || error.code == .timeout {
            throw StreamFailure(error.code, "cannot open the sync stream: \(error.message)", cause: error)
        }
        logger.debug("sync stream opened", metadata: ["switchboard.sync.since": "\(checkpoint?.rawValue ?? "")"])
        let idle = IdleWatch()
        var sent = Duration.zero
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [clock, timeout = configuration.streamIdleTimeout] in
                    try await idle.watch(connection, timeout: timeout, clock: clock)
                }
                defer { group.cancelAll() }
                do {
                    sent = run.backendClock.now()
                    try await connection.send(.text(SyncStreamFrame.request(since: checkpoint?.rawValue).encoded()))
                } catch {
                    throw StreamFailure(.network, "cannot send the sync request", cause: SendableDescription(error))
                }
                try await read(connection, idle: idle, sent: sent, run: &run)
            }
            await connection.close(code: .normalClosure, reason: "")
        } catch {
            await connection.close(code: .normalClosure, reason: "")
            if idle.timedOut {
                throw StreamFailure(.timeout, "the sync stream sent nothing for \(configuration.streamIdleTimeout)")
            }
            throw error
        }
    }

    private func read(_ connection: any WebSocketConnection, idle: IdleWatch, sent: Duration, run: inout CatchUpRun) async throws {
        var iterator = connection.inbound.makeAsyncIterator()
        while true {
            let next: WebSocketInboundEvent?
            do {
                next = try await iterator.next()
            } catch {
                throw StreamFailure(.network, "the sync stream failed after \(run.processed) events", cause: SendableDescription(error))
            }
            idle.touch()
            switch next {
            case nil, .closed?:
                let close = if case .closed(let close)? = next { " (close \(close.code) \(close.reason))" } else { "" }
                throw StreamFailure(.network, "the sync stream ended before complete, after \(run.processed) events\(close)")
            case .message(.binary(let data))?:
                throw StreamFailure(.protocolViolation, "the sync stream sent a binary frame of \(data.count) bytes")
            case .message(.text(let text))?:
                logger.trace("sync frame", metadata: ["switchboard.sync.frame": "\(text.prefix(200))"])
                if try await handle(text, sent: sent, run: &run) { return }
            }
        }
    }

    /// Handles one frame. - Returns: Whether the stream completed.
    private func handle(_ text: String, sent: Duration, run: inout CatchUpRun) async throws -> Bool {
        let frame: SyncStreamFrame
        do {
            frame = try SyncStreamFrame(decoding: text)
        } catch {
            throw StreamFailure(
                .protocolViolation,
                "malformed sync stream frame after \(run.processed) events: \(error.description); frame: \(text.prefix(120))")
        }
        switch frame {
        case .start(let totalEvents, let serverTime):
            if run.answered(serverTime: self.serverTime(serverTime, in: "sync.stream.start"), sent: sent) {
                throw StartCorrected()
            }
            run.total = run.processed + totalEvents
            run.reportProgress()
        case .batch(let events, _, _, let checkpoint):
            try await run.deliver(events, then: checkpoint.map(SyncCheckpoint.init(rawValue:)))
        case .complete(_, let newCheckpoint):
            try await run.deliver([], then: SyncCheckpoint(rawValue: newCheckpoint))
            return true
        case .error(let body) where body.code == SyncErrorBody.checkpointExpired:
            throw SwitchboardError(code: .checkpointExpired, message: body.error)
        case .error(let body):
            throw StreamFailure(.syncRejected, "the sync stream refused: \(body.error) (\(body.code ?? "no code"))")
        case .request:
            throw StreamFailure(.protocolViolation, "the sync stream sent a request frame")
        }
        return false
    }
}

/// Closes a stream that stays silent for longer than its timeout.
final class IdleWatch: Sendable {
    private let state = LockedValue((activity: 0, timedOut: false))

    var timedOut: Bool { state.withLock { $0.timedOut } }

    func touch() { state.withLock { $0.activity += 1 } }

    func watch(_ connection: any WebSocketConnection, timeout: Duration, clock: any Clock<Duration>) async throws {
        while true {
            let before = state.withLock { $0.activity }
            try await clock.sleep(for: timeout)
            let silent = state.withLock { state in
                if state.activity == before { state.timedOut = true }
                return state.timedOut
            }
            if silent {
                await connection.close(code: .goingAway, reason: "idle")
                return
            }
        }
    }
}

/// A non-`Sendable` error kept as its description.
struct SendableDescription: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ error: any Error) { description = "\(error)" }
}
