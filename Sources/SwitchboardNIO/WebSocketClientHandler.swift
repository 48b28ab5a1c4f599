import Foundation
import Logging
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// The per-connection frame handler, on the channel's event loop: reassembles fragmented
/// messages, answers pings, matches pongs to pings, runs the close handshake, and pushes every
/// message into the connection's ``WebSocketInbound`` in arrival order.
///
/// It is the last handler of the pipeline, so there is no task per connection: the event loop
/// delivers each frame straight into the inbound sequence, which preserves order and never
/// drops a message.
final class WebSocketClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private enum Fragments {
        case none
        case text(ByteBuffer)
        case binary(ByteBuffer)
    }

    private let continuation: WebSocketInbound.Continuation
    private let maximumMessageSize: Int
    private let lifecycle: ConnectionLifecycle
    private let logger: Logger
    private var fragments = Fragments.none
    private var closeSent = false
    private var finished = false
    private var pingWaiters: [(payload: ByteBuffer, promise: EventLoopPromise<Void>)] = []
    private var context: ChannelHandlerContext?

    init(continuation: WebSocketInbound.Continuation, maximumMessageSize: Int, lifecycle: ConnectionLifecycle, logger: Logger) {
        self.continuation = continuation
        self.maximumMessageSize = maximumMessageSize
        self.lifecycle = lifecycle
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(.closed(WebSocketClose(code: .abnormalClosure, reason: "connection closed without a close frame")))
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            guard !closeSent else { return }
            write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData), context: context)
        case .pong:
            let payload = frame.unmaskedData
            if let index = pingWaiters.firstIndex(where: { $0.payload == payload }) {
                pingWaiters.remove(at: index).promise.succeed(())
            }
        case .text, .binary:
            guard case .none = fragments else {
                return fail(.protocolError, "a new message started before the fragmented one ended", context: context)
            }
            let data = frame.unmaskedData
            guard data.readableBytes <= maximumMessageSize else {
                return fail(.init(1009), "a message of \(data.readableBytes) bytes exceeds the limit of \(maximumMessageSize)", context: context)
            }
            if frame.fin {
                deliver(text: frame.opcode == .text, data, context: context)
            } else {
                fragments = frame.opcode == .text ? .text(data) : .binary(data)
            }
        case .continuation:
            var frameData = frame.unmaskedData
            switch fragments {
            case .none:
                fail(.protocolError, "a continuation frame arrived without a message to continue", context: context)
            case .text(var buffer), .binary(var buffer):
                let isText = if case .text = fragments { true } else { false }
                guard buffer.readableBytes + frameData.readableBytes <= maximumMessageSize else {
                    fragments = .none
                    return fail(.init(1009), "a fragmented message exceeds the limit of \(maximumMessageSize) bytes", context: context)
                }
                buffer.writeBuffer(&frameData)
                if frame.fin {
                    fragments = .none
                    deliver(text: isText, buffer, context: context)
                } else {
                    fragments = isText ? .text(buffer) : .binary(buffer)
                }
            }
        case .connectionClose:
            receivedClose(frame.unmaskedData, context: context)
        default:
            fail(.protocolError, "unknown opcode \(frame.opcode)", context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.closed(WebSocketClose(code: .abnormalClosure, reason: "connection closed without a close frame")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError {
            // The decoder refused a frame: answer with the matching close code.
            let code: WebSocketCloseCode = error == .invalidFrameLength ? .init(1009) : .protocolError
            logger.debug("websocket protocol error", metadata: ["websocket.error": "\(error)"])
            fail(code, "the server sent an invalid frame (\(error))", context: context)
        } else {
            logger.debug("websocket connection error", metadata: ["websocket.error": "\(error)"])
            finish(throwing: SwitchboardError(code: .network, message: "the WebSocket connection failed: \(error)", cause: error))
            context.close(promise: nil)
        }
    }

    // MARK: Commands from the connection (on the event loop)

    /// Sends a close frame, unless one was sent already. Returns whether it sent one.
    func initiateClose(code: WebSocketCloseCode, reason: String) -> Bool {
        guard let context, !closeSent, !finished else { return false }
        closeSent = true
        write(Self.closeFrame(code: code, reason: reason, allocator: context.channel.allocator), context: context)
        return true
    }

    /// Sends a ping; the promise succeeds when the matching pong arrives.
    func ping(_ payload: ByteBuffer, promise: EventLoopPromise<Void>) {
        guard let context, !closeSent, !finished else {
            promise.fail(SwitchboardError(code: .network, message: "the WebSocket connection is closed"))
            return
        }
        pingWaiters.append((payload, promise))
        write(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: payload), context: context)
    }

    // MARK: Helpers

    private func deliver(text: Bool, _ buffer: ByteBuffer, context: ChannelHandlerContext) {
        guard !finished else { return }
        if text {
            guard let string = String(validating: buffer.readableBytesView, as: UTF8.self) else {
                return fail(.init(1007), "a text message is not valid UTF-8", context: context)
            }
            continuation.yield(.message(.text(string)))
        } else {
            continuation.yield(.message(.binary(Data(buffer.readableBytesView))))
        }
    }

    private func receivedClose(_ data: ByteBuffer, context: ChannelHandlerContext) {
        var data = data
        let code = data.readInteger(as: UInt16.self).map { WebSocketCloseCode($0) } ?? WebSocketCloseCode(1005)
        let reason = data.readString(length: data.readableBytes) ?? ""
        logger.debug("server closed", metadata: ["websocket.close.code": "\(code)"])
        // Report first: closing the channel below may run channelInactive synchronously.
        finish(.closed(WebSocketClose(code: code, reason: reason)))
        if !closeSent {
            closeSent = true
            // Echo the code, then close TCP; the server may already have dropped it.
            let echo = code.rawValue == 1005 ? WebSocketCloseCode.normalClosure : code
            writeThenClose(Self.closeFrame(code: echo, reason: "", allocator: context.channel.allocator), context: context)
        } else {
            context.close(promise: nil)
        }
    }

    /// Closes with `code` because the server broke the protocol, and ends the inbound sequence
    /// with a ``SwitchboardError/Code/protocolViolation`` error.
    private func fail(_ code: WebSocketCloseCode, _ message: String, context: ChannelHandlerContext) {
        logger.debug("closing on a protocol error", metadata: ["websocket.close.code": "\(code)"])
        // Report first: closing the channel below may run channelInactive synchronously.
        finish(throwing: SwitchboardError(code: .protocolViolation, message: "\(message); closed with \(code)"))
        if !closeSent {
            closeSent = true
            writeThenClose(Self.closeFrame(code: code, reason: "", allocator: context.channel.allocator), context: context)
        }
    }

    private func finish(_ last: WebSocketInboundEvent? = nil, throwing error: (any Error)? = nil) {
        guard !finished else { return }
        finished = true
        lifecycle.markClosed()
        if let last { continuation.yield(last) }
        continuation.finish(throwing: error)
        let waiters = pingWaiters
        pingWaiters.removeAll()
        for waiter in waiters {
            waiter.promise.fail(SwitchboardError(code: .network, message: "the connection closed before the pong arrived"))
        }
    }

    private func writeThenClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        let bound = context.loopBound
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in bound.value.close(promise: nil) }
    }

    private func write(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    static func closeFrame(code: WebSocketCloseCode, reason: String, allocator: ByteBufferAllocator) -> WebSocketFrame {
        var data = allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code.rawValue)
        // A close frame's payload is at most 125 bytes.
        data.writeBytes(reason.utf8.prefix(123))
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
    }
}

/// Whether the connection is closed, shared by the handler (event loop) and the connection.
final class ConnectionLifecycle: Sendable {
    private let closed = LockedValue(false)
    var isClosed: Bool { closed.withLock { $0 } }
    func markClosed() { closed.withLock { $0 = true } }
}
