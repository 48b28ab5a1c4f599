import Foundation
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// One open WebSocket on SwiftNIO, made by ``NIOWebSocketConnector``. One-shot: once closed it
/// stays closed; reconnecting opens a new connection.
///
/// - ``inbound`` delivers complete messages in arrival order (fragments reassembled, nothing
///   dropped), then ends:
///   - after a server close frame: `.closed(code, reason)`, then the end, even if the server
///     drops TCP right behind its close frame;
///   - after ``close(code:reason:)``: `.closed` with the server's answering close frame, or with
///     the close that was sent if the server did not answer within the close timeout;
///   - when the socket ends without a close frame (1006): it throws ``/SwitchboardCore/SwitchboardError`` with
///     ``/SwitchboardCore/SwitchboardError/Code/network`` (the socket error, if any, is the `cause`);
///   - when the server breaks the protocol or a limit: the engine sends a close frame (1002,
///     1007 or 1009) and it throws ``/SwitchboardCore/SwitchboardError`` with
///     ``/SwitchboardCore/SwitchboardError/Code/protocolViolation`` whose `cause` is a
///     ``NIOWebSocketProtocolError`` naming the code.
/// - Pings from the server are answered with pongs carrying the same payload;
///   ``sendPing(_:)`` measures a round trip.
/// - Every client frame is masked with a fresh random key.
///
/// The protocol runs on the channel's event loop, in the channel's last handler: it owns the
/// protocol state machine and is the socket's only writer, so sends, pongs and the close
/// handshake never interleave inside a frame and nothing is sent after the close frame. The
/// methods below hop onto the event loop to reach it; no task runs per connection.
/// The channel is closed when the close handshake ends, the server closes or drops, or the last
/// reference to the connection goes away without ``close(code:reason:)`` (the engine then sends
/// 1001 "going away").
public final class NIOWebSocketConnection: WebSocketConnection {
    /// The subprotocol the server chose, `nil` if none was offered.
    public let subprotocol: String?
    /// What arrives on the socket; one consumer.
    public let inbound: WebSocketInbound

    /// What the connection may hold between its socket and its consumer
    /// (``NIOWebSocketConnector/Configuration/maximumBufferedInboundBytes``).
    package let inboundBudget: InboundBudget
    private let channel: UpgradedChannel
    private let pingIDs = LockedValue<UInt64>(0)

    private init(subprotocol: String?, channel: UpgradedChannel) {
        self.subprotocol = subprotocol
        self.inbound = channel.inbound
        self.inboundBudget = channel.budget
        self.channel = channel
    }

    /// Wraps an upgraded channel and starts its protocol.
    static func start(channel: UpgradedChannel, subprotocol: String?) -> NIOWebSocketConnection {
        channel.start()
        return NIOWebSocketConnection(subprotocol: subprotocol, channel: channel)
    }

    deinit {
        // A closed channel needs no "going away" (and its loop may be shut down).
        guard channel.channel.isActive else { return }
        channel.onEventLoop { $0.released() }
    }

    /// Sends a text or binary message in one masked frame. Returns once the socket's writer has
    /// taken it (so a slow server slows the sender down).
    /// - Parameter message: The message.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/network`` once
    ///   ``close(code:reason:)`` was called or the connection ended, or if the write fails.
    public func send(_ message: WebSocketMessage) async throws {
        let channel = channel
        try channel.checkLoopAlive()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            channel.onEventLoop { $0.send(message, continuation: continuation) }
        }
    }

    /// Sends a ping and waits for the pong carrying the same payload.
    ///
    /// Pongs are matched by payload, oldest ping first; a pong nobody waits for is ignored. Cancel
    /// the calling task to stop waiting.
    /// - Parameter payload: At most 125 bytes; empty by default.
    /// - Returns: The round-trip time, measured on the configuration's clock.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` for a
    ///   payload over 125 bytes, ``/SwitchboardCore/SwitchboardError/Code/network`` if the connection closes
    ///   before the pong, `CancellationError` if the task is cancelled.
    @discardableResult
    public func sendPing(_ payload: Data = Data()) async throws -> Duration {
        guard payload.count <= 125 else {
            throw SwitchboardError(code: .invalidConfiguration, message: "a ping payload is at most 125 bytes, not \(payload.count)")
        }
        try Task.checkCancellation()
        try channel.checkLoopAlive()
        let id = pingIDs.withLock { id in
            id += 1
            return id
        }
        let channel = channel
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Duration, any Error>) in
                channel.onEventLoop { $0.ping(id: id, payload: ByteBuffer(bytes: payload), continuation: continuation) }
            }
        } onCancel: {
            channel.onEventLoop { $0.cancelPing(id: id) }
        }
    }

    /// Runs the close handshake: sends a close frame with `code` and `reason` (cut to 123 bytes),
    /// waits up to the close timeout for the server's close frame, then closes TCP. Returns when
    /// the socket is closed. Never throws; closing twice is harmless.
    ///
    /// Codes that may not be sent on the wire (1005, 1006, 1015, below 1000, 5000 and up) send a
    /// close frame without a code.
    /// - Parameters:
    ///   - code: The close code; 1000 (normal closure) by default.
    ///   - reason: The close reason; empty by default.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        let close = WebSocketClose(code: code, reason: reason)
        // Closed already (perhaps with its event loop group shut down): nothing to hop to.
        guard channel.channel.isActive else { return }
        channel.onEventLoop { $0.close(close) }
        // The handler closes the channel once the handshake ended (or its deadline passed).
        try? await channel.channel.closeFuture.get()
    }
}
