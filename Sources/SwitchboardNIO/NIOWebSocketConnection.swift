import Foundation
import Logging
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// A WebSocket connection on SwiftNIO, made by ``NIOWebSocketConnector``.
///
/// Messages arrive on ``inbound`` in order, fragments already reassembled. A close frame from
/// the server surfaces as ``WebSocketInboundEvent/closed(_:)`` with its code and reason and
/// ends the sequence; a connection that drops without one ends with
/// `closed(1006 abnormalClosure)`. A server that breaks the protocol (invalid UTF-8 in a text
/// message, a message above the size limit, a bad frame) is closed with the matching code
/// (1007, 1009, 1002) and the sequence ends by throwing ``SwitchboardError`` with
/// ``SwitchboardError/Code/protocolViolation``. Pings from the server are answered at once.
public final class NIOWebSocketConnection: WebSocketConnection {
    public let subprotocol: String?
    public let inbound: WebSocketInbound

    private let channel: any Channel
    private let handler: NIOLoopBound<WebSocketClientHandler>
    private let lifecycle: ConnectionLifecycle
    private let clock: any Clock<Duration>
    private let closeTimeout: Duration

    init(
        subprotocol: String?, inbound: WebSocketInbound, channel: any Channel,
        handler: NIOLoopBound<WebSocketClientHandler>, lifecycle: ConnectionLifecycle,
        clock: any Clock<Duration>, closeTimeout: Duration
    ) {
        self.subprotocol = subprotocol
        self.inbound = inbound
        self.channel = channel
        self.handler = handler
        self.lifecycle = lifecycle
        self.clock = clock
        self.closeTimeout = closeTimeout
    }

    /// Sends a text or binary message as one masked frame.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/network`` when the connection is
    ///   closed or the write fails.
    public func send(_ message: WebSocketMessage) async throws {
        guard !lifecycle.isClosed else {
            throw SwitchboardError(code: .network, message: "the WebSocket connection is closed")
        }
        let frame: WebSocketFrame
        switch message {
        case .text(let text):
            frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        case .binary(let data):
            frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: data))
        }
        do {
            try await channel.writeAndFlush(frame)
        } catch {
            throw SwitchboardError(code: .network, message: "sending on the WebSocket connection failed", cause: error)
        }
    }

    /// Sends a ping and returns when the matching pong arrives.
    /// - Parameter payload: At most 125 bytes, echoed by the server.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/network`` when the connection
    ///   closes first. Bound the wait with your own deadline (a task group with a clock sleep).
    public func ping(payload: Data = Data()) async throws {
        precondition(payload.count <= 125, "a ping payload is at most 125 bytes")
        let handler = self.handler
        let buffer = ByteBuffer(bytes: payload)
        try await channel.eventLoop.flatSubmit {
            let promise = handler.eventLoop.makePromise(of: Void.self)
            handler.value.ping(buffer, promise: promise)
            return promise.futureResult
        }.get()
    }

    /// Runs the close handshake: sends a close frame with `code` and `reason`, waits for the
    /// server's close frame (at most the configured close timeout, on the configured clock), then
    /// closes TCP. Calling it again, or after the server closed, only closes TCP.
    public func close(code: WebSocketCloseCode, reason: String) async {
        let handler = self.handler
        let sent = (try? await channel.eventLoop.submit { handler.value.initiateClose(code: code, reason: reason) }.get()) ?? false
        if sent {
            let channel = self.channel
            let clock = self.clock
            let timeout = closeTimeout
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await channel.closeFuture.get() }
                group.addTask { try? await clock.sleep(for: timeout) }
                await group.next()
                group.cancelAll()
                // A server that never answers is closed on; closing also ends the other child.
                channel.close(promise: nil)
            }
        } else {
            try? await channel.close()
        }
    }
}
