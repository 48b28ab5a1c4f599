import Foundation
import SwitchboardCore

/// A ``/SwitchboardCore/WebSocketConnection`` for tests: the test plays the server.
///
/// What the client sends is recorded and can be awaited with ``nextSent()``; what the server
/// sends is scripted with ``serverSends(_:)``, ``serverCloses(code:reason:)`` and
/// ``fail(_:)``.
///
/// Pings the client sends with ``sendPing(_:)`` are recorded too and wait for the test: answer
/// them with ``answerPing()``, or withhold the pong to play a dead network path.
///
/// ```swift
/// transport.verifyConnection(timeout: .seconds(2))
/// _ = await connection.nextPing()   // the client pinged
/// connection.answerPing()           // the pong: the connection is kept
/// ```
public final class ScriptedWebSocketConnection: WebSocketConnection {
    /// The connection's state, for assertions.
    public struct State: Sendable {
        /// Every message the client sent, in order.
        public var sent: [WebSocketMessage] = []
        /// How many sent messages ``nextSent()`` has handed out.
        public var consumed = 0
        /// The close the client asked for, if it did.
        public var clientClose: WebSocketClose?
        /// Whether the connection is closed (by either side).
        public var isClosed = false
        /// The payload of every ping the client sent, in order.
        public var pings: [Data] = []
        /// How many pings ``nextPing()`` has handed out.
        public var pingsTaken = 0
        /// How many pings the "server" answered with ``answerPing()``, oldest first.
        public var pongs = 0
    }

    public let subprotocol: String?
    public let inbound: WebSocketInbound
    private let server: WebSocketInbound.Continuation
    private let observed = Observed(State())

    /// Creates a connection.
    /// - Parameter subprotocol: The subprotocol the "server" selected.
    public init(subprotocol: String? = nil) {
        self.subprotocol = subprotocol
        (inbound, server) = WebSocketInbound.makeStream()
    }

    /// A snapshot of the state.
    public var state: State { observed.value }

    // MARK: WebSocketConnection

    public func send(_ message: WebSocketMessage) async throws {
        let closed = observed.update { state -> Bool in
            guard !state.isClosed else { return true }
            state.sent.append(message)
            return false
        }
        if closed { throw SwitchboardError(code: .network, message: "send on a closed WebSocket") }
    }

    public func close(code: WebSocketCloseCode, reason: String) async {
        let first = observed.update { state -> Bool in
            guard !state.isClosed else { return false }
            state.isClosed = true
            state.clientClose = WebSocketClose(code: code, reason: reason)
            return true
        }
        if first {
            server.yield(.closed(WebSocketClose(code: code, reason: reason)))
            server.finish()
        }
    }

    /// Records the ping and waits until the test answers it with ``answerPing()``.
    /// - Parameter payload: The ping's payload, at most 125 bytes.
    /// - Returns: Zero: a scripted connection has no clock to measure a round trip on.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` for a
    ///   payload over 125 bytes, ``/SwitchboardCore/SwitchboardError/Code/network`` if the connection is or
    ///   becomes closed before the answer; `CancellationError` if the task is cancelled first.
    public func sendPing(_ payload: Data) async throws -> Duration {
        guard payload.count <= 125 else {
            throw SwitchboardError(code: .invalidConfiguration, message: "a ping payload is at most 125 bytes, not \(payload.count)")
        }
        let index = observed.update { state -> Int? in
            guard !state.isClosed else { return nil }
            state.pings.append(payload)
            return state.pings.count - 1
        }
        guard let index else { throw SwitchboardError(code: .network, message: "ping on a closed WebSocket") }
        await observed.wait { $0.pongs > index || $0.isClosed }
        if observed.value.pongs > index { return .zero }
        try Task.checkCancellation()
        throw SwitchboardError(code: .network, message: "the WebSocket closed before the pong")
    }

    // MARK: Scripting the server

    /// The next ping the client sent that the test has not taken yet; waits for it.
    /// Returns nil if the connection closes (or the task is cancelled) first. Taking a ping does
    /// not answer it.
    /// - Returns: The ping's payload.
    public func nextPing() async -> Data? {
        await observed.wait { $0.pings.count > $0.pingsTaken || $0.isClosed }
        return observed.update { state -> Data? in
            guard state.pings.count > state.pingsTaken else { return nil }
            defer { state.pingsTaken += 1 }
            return state.pings[state.pingsTaken]
        }
    }

    /// The "server" answers the oldest unanswered ping with a pong.
    /// - Returns: Whether there was a ping to answer (false if none is waiting or the
    ///   connection is closed).
    @discardableResult
    public func answerPing() -> Bool {
        observed.update { state -> Bool in
            guard !state.isClosed, state.pongs < state.pings.count else { return false }
            state.pongs += 1
            return true
        }
    }

    /// The next message the client sent that the test has not taken yet; waits for it.
    /// Returns nil if the connection closes (or the task is cancelled) first.
    public func nextSent() async -> WebSocketMessage? {
        await observed.wait { $0.sent.count > $0.consumed || $0.isClosed }
        return observed.update { state -> WebSocketMessage? in
            guard state.sent.count > state.consumed else { return nil }
            defer { state.consumed += 1 }
            return state.sent[state.consumed]
        }
    }

    /// The text of the next message the client sent, or nil (closed, or a binary message).
    public func nextSentText() async -> String? {
        if case .text(let text)? = await nextSent() { return text }
        return nil
    }

    /// Sends a message from the server.
    public func serverSends(_ message: WebSocketMessage) {
        guard !state.isClosed else { return }
        server.yield(.message(message))
    }

    /// Sends a text frame from the server.
    public func serverSends(text: String) { serverSends(.text(text)) }

    /// Sends a text frame from the server, charged to `budget` as a socket engine charges what it
    /// reads (its length), so that a reader's release of it can be followed.
    package func serverSends(text: String, charging budget: InboundBudget) {
        guard !state.isClosed else { return }
        server.yield(.message(.text(text)), charge: budget.charge(text.utf8.count))
    }

    /// The server closes with a close frame.
    public func serverCloses(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let first = observed.update { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard first else { return }
        server.yield(.closed(WebSocketClose(code: code, reason: reason)))
        server.finish()
    }

    /// The socket fails without a close frame (TCP reset, abort).
    public func fail(_ error: any Error = SwitchboardError(code: .network, message: "connection reset by peer")) {
        let first = observed.update { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard first else { return }
        server.finish(throwing: error)
    }
}

/// A ``/SwitchboardCore/WebSocketConnector`` for tests: every `connect` makes a ``ScriptedWebSocketConnection``
/// (or fails, if the test queued a failure), and the test takes them with ``nextAttempt()``.
public final class ScriptedWebSocketConnector: WebSocketConnector {
    /// One connect call.
    public struct Attempt: Sendable {
        /// What the client asked to open.
        public var request: WebSocketRequest
        /// The connection handed out, or nil when the attempt failed.
        public var connection: ScriptedWebSocketConnection?
    }

    private struct State: Sendable {
        var attempts: [Attempt] = []
        var taken = 0
        var failures: [SwitchboardError] = []
    }

    private let observed = Observed(State())
    private let selectSubprotocol: @Sendable ([String]) -> String?

    /// Creates a connector.
    /// - Parameter selectSubprotocol: Which offered subprotocol the "server" picks; the first by default.
    public init(selectSubprotocol: @escaping @Sendable ([String]) -> String? = { $0.first }) {
        self.selectSubprotocol = selectSubprotocol
    }

    /// Every attempt so far.
    public var attempts: [Attempt] { observed.value.attempts }

    /// Makes the next connect fail with `error`.
    public func failNextConnect(with error: SwitchboardError) {
        observed.update { $0.failures.append(error) }
    }

    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        let outcome = observed.update { state -> Result<ScriptedWebSocketConnection, SwitchboardError> in
            if !state.failures.isEmpty {
                let error = state.failures.removeFirst()
                state.attempts.append(Attempt(request: request, connection: nil))
                return .failure(error)
            }
            let connection = ScriptedWebSocketConnection(subprotocol: selectSubprotocol(request.subprotocols))
            state.attempts.append(Attempt(request: request, connection: connection))
            return .success(connection)
        }
        return try outcome.get()
    }

    /// The next connect attempt the test has not taken yet; waits for it.
    public func nextAttempt() async -> Attempt? {
        await observed.wait { $0.attempts.count > $0.taken }
        return observed.update { state -> Attempt? in
            guard state.attempts.count > state.taken else { return nil }
            defer { state.taken += 1 }
            return state.attempts[state.taken]
        }
    }
}
