import Foundation
import Logging
import SwitchboardCore

/// One open WebSocket on a `URLSessionWebSocketTask`, made by
/// ``URLSessionWebSocketConnector``.
///
/// The system masks frames, answers pings and reassembles fragments. Messages are received one
/// at a time: the next receive starts once the previous message was handed to ``inbound``. The
/// peer's close frame ends ``inbound`` with `.closed`; a socket that fails without one ends it
/// with a ``/SwitchboardCore/SwitchboardError`` (``/SwitchboardCore/SwitchboardError/Code/network``). After
/// ``close(code:reason:)`` it ends without either.
public final class URLSessionWebSocketConnection: WebSocketConnection {
    /// The subprotocol the server chose, `nil` if none was offered.
    public let subprotocol: String?
    /// What arrives on the socket; one consumer.
    public let inbound: WebSocketInbound

    private let task: any WebSocketSessionTask
    private let events: WebSocketTaskEvents
    private let settings: Settings
    /// Whether ``close(code:reason:)`` ran: the receive that fails next is the end, not a failure.
    private let closing: LockedValue<Bool>
    /// What the connection may hold between its task and its consumer.
    private let budget: InboundBudget

    /// What a connection needs of its connector's configuration.
    struct Settings: Sendable {
        var maximumMessageSize: Int
        var maximumBufferedInboundBytes = 1 << 20
        var closeTimeout: Duration
        var clock: any Clock<Duration>
        var logger: Logger
    }

    private init(
        task: any WebSocketSessionTask, events: WebSocketTaskEvents, subprotocol: String?, inbound: WebSocketInbound,
        settings: Settings, closing: LockedValue<Bool>, budget: InboundBudget
    ) {
        self.budget = budget
        self.task = task
        self.events = events
        self.subprotocol = subprotocol
        self.inbound = inbound
        self.settings = settings
        self.closing = closing
    }

    /// A connection dropped without ``close(code:reason:)`` ends its task with 1001 (going away).
    deinit {
        if !closing.withLock({ $0 }) { task.cancel(closeCode: .goingAway, reason: nil) }
        // A receive held back by the budget goes on, fails on the cancelled task and ends.
        budget.wakeReader()
    }

    /// Wraps an upgraded task and starts receiving.
    static func start(
        task: any WebSocketSessionTask, events: WebSocketTaskEvents, subprotocol: String?, settings: Settings
    ) -> URLSessionWebSocketConnection {
        let (inbound, continuation) = WebSocketInbound.makeStream()
        let closing = LockedValue(false)
        let budget = InboundBudget(limit: settings.maximumBufferedInboundBytes)
        receive(task: task, events: events, into: continuation, closing: closing, budget: budget, settings: settings)
        return URLSessionWebSocketConnection(
            task: task, events: events, subprotocol: subprotocol, inbound: inbound, settings: settings, closing: closing,
            budget: budget)
    }

    /// Receives one message and, once it was handed on, the next: a chain of completion handlers
    /// that ends with the socket. While the connection's ``InboundBudget`` is spent, the next
    /// receive waits until its consumer has taken half of it.
    private static func receive(
        task: any WebSocketSessionTask, events: WebSocketTaskEvents, into continuation: WebSocketInbound.Continuation,
        closing: LockedValue<Bool>, budget: InboundBudget, settings: Settings
    ) {
        task.receiveMessage { result in
            switch result {
            case .success(let message):
                settings.logger.trace("frame in", metadata: ["switchboard.websocket.message": "\(Self.kind(message))"])
                let charge = budget.charge(Self.size(of: message) + InboundBudget.perMessageOverhead)
                continuation.yield(.message(message), charge: charge)
                let next: @Sendable () -> Void = {
                    receive(task: task, events: events, into: continuation, closing: closing, budget: budget, settings: settings)
                }
                if budget.mayRead(orWake: next) { next() }
            case .failure(let error):
                if let close = events.receivedClose ?? task.receivedClose {
                    settings.logger.debug("closed by the server", metadata: ["switchboard.websocket.close.code": "\(close.code)"])
                    continuation.yield(.closed(close))
                    continuation.finish()
                } else if closing.withLock({ $0 }) {
                    continuation.finish()
                } else {
                    let failure = URLSessionFailure.receiving(error, maximumMessageSize: settings.maximumMessageSize)
                    settings.logger.debug("socket failed", metadata: ["switchboard.error": "\(failure.message)"])
                    task.cancel()
                    continuation.finish(throwing: failure)
                }
            }
        }
    }

    public func send(_ message: WebSocketMessage) async throws {
        let task = task
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            task.sendMessage(message) { error in
                if let error {
                    continuation.resume(throwing: SwitchboardError(
                        code: .network, message: "the WebSocket is closed; the message was not sent", cause: error))
                } else {
                    continuation.resume()
                }
            }
        }
        settings.logger.trace("frame out", metadata: ["switchboard.websocket.message": "\(Self.kind(message))"])
    }

    /// Sends a close frame, waits up to the close timeout for the handshake to end, then ends the
    /// task. Never throws; closing twice is harmless.
    /// - Parameters:
    ///   - code: The close code. On swift-corelibs-foundation an application code (4000–4999)
    ///     goes out as 1000; Apple platforms send any code.
    ///   - reason: The close reason, cut to the 123 bytes a close frame carries.
    public func close(code: WebSocketCloseCode, reason: String) async {
        let first = closing.withLock { closing in
            defer { closing = true }
            return !closing
        }
        guard first else { return }
        settings.logger.debug("closing", metadata: ["switchboard.websocket.close.code": "\(code)"])
        task.cancel(closeCode: code, reason: Data(Self.truncated(reason).utf8))
        // A receive held back by the budget goes on, fails on the cancelled task and ends inbound.
        budget.wakeReader()
        let events = events
        _ = try? await withDeadline(
            settings.closeTimeout, on: settings.clock,
            timeoutError: SwitchboardError(code: .network, message: "the close handshake took too long"),
            onTimeout: { [task] in task.cancel() }
        ) {
            await events.completion()
        }
    }

    /// Sends a ping and waits for its pong. `URLSession` sends pings without a payload, so
    /// `payload` is only checked.
    /// - Parameter payload: At most 125 bytes.
    /// - Returns: The round trip, measured on the connector's clock.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/network`` if the socket fails
    ///   or closes before the pong, ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` for a payload
    ///   over 125 bytes; `CancellationError` when the calling task is cancelled.
    public func sendPing(_ payload: Data = Data()) async throws -> Duration {
        guard payload.count <= 125 else {
            throw SwitchboardError(code: .invalidConfiguration, message: "a ping payload is at most 125 bytes, not \(payload.count)")
        }
        try Task.checkCancellation()
        let stopwatch = Stopwatch(settings.clock)
        let waiter = LockedValue<CheckedContinuation<Void, any Error>?>(nil)
        let task = task
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = waiter.withLock { waiter in
                    if Task.isCancelled { return true }
                    waiter = continuation
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                task.sendPing { error in
                    guard let waiting = waiter.withLock({ $0.take() }) else { return }
                    if let error {
                        waiting.resume(throwing: SwitchboardError(
                            code: .network, message: "the WebSocket closed before the pong", cause: error))
                    } else {
                        waiting.resume()
                    }
                }
            }
        } onCancel: {
            waiter.withLock { $0.take() }?.resume(throwing: CancellationError())
        }
        return stopwatch.now()
    }

    /// The message's payload size in bytes.
    private static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }

    private static func kind(_ message: WebSocketMessage) -> String {
        switch message {
        case .text(let text): "text \(text.utf8.count) bytes"
        case .binary(let data): "binary \(data.count) bytes"
        }
    }

    /// At most 123 bytes of UTF-8, cut at a character boundary.
    static func truncated(_ reason: String) -> String {
        var result = ""
        for character in reason {
            guard result.utf8.count + character.utf8.count <= 123 else { break }
            result.append(character)
        }
        return result
    }
}
