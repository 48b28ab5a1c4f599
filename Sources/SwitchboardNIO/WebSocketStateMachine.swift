import Foundation
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// A frame the engine wants to send. The protocol handler masks it with a fresh random key.
struct OutboundFrame: Equatable, Sendable {
    var opcode: WebSocketOpcode
    var payload: ByteBuffer
}

/// The WebSocket protocol of one client connection, as a pure state machine (RFC 6455 §5–7).
///
/// Inputs are facts (a frame arrived, the user asked to close, the close deadline passed, the
/// socket ended); outputs are ``Action``s the protocol handler (``WebSocketConnectionHandler``,
/// on the event loop) carries out. It never does I/O and never reads a clock or random numbers,
/// so every rule is tested without a socket.
struct WebSocketStateMachine {
    /// What the handler does after an input.
    enum Action: Equatable {
        /// Nothing.
        case none
        /// Hands a complete message to the consumer.
        case deliver(WebSocketMessage)
        /// Sends a control frame (a pong answering a ping).
        case send(OutboundFrame)
        /// A pong arrived with this payload.
        case pongReceived(ByteBuffer)
        /// The connection is over: report `ending` to the consumer, send `reply` if any (ignoring
        /// failures: the peer may be gone), then close TCP.
        case finish(Ending, reply: OutboundFrame?)
    }

    /// How the inbound sequence ends.
    enum Ending: Equatable {
        /// With ``WebSocketInboundEvent/closed(_:)``.
        case closed(WebSocketClose)
        /// By throwing.
        case failed(SwitchboardError)
    }

    private enum State {
        case open
        /// The client sent this close frame and waits for the server's.
        case closing(sent: WebSocketClose)
        case closed
    }

    /// A fragmented message being reassembled.
    private struct Assembly {
        var isText: Bool
        var buffer: ByteBuffer
    }

    private var state: State = .open
    private var assembly: Assembly?
    private let maximumMessageSize: Int

    /// Creates the machine of an open connection.
    /// - Parameter maximumMessageSize: The largest reassembled message accepted, in bytes.
    init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Whether the user may still send messages and pings.
    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    // MARK: Inputs

    /// A frame arrived from the server.
    mutating func received(_ frame: WebSocketFrame) -> Action {
        if case .closed = state { return .none }
        if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            return fail(.protocolError, "the server set reserved bits without a negotiated extension")
        }
        if frame.maskKey != nil {
            return fail(.protocolError, "the server sent a masked frame")
        }
        switch frame.opcode {
        case .text, .binary:
            guard assembly == nil else {
                return fail(.protocolError, "a new message started before the fragmented one ended")
            }
            let isText = frame.opcode == .text
            guard frame.fin else {
                assembly = Assembly(isText: isText, buffer: frame.data)
                return checkAssemblySize()
            }
            return complete(isText: isText, frame.data)
        case .continuation:
            guard var current = assembly else {
                return fail(.protocolError, "a continuation frame arrived without a message to continue")
            }
            assembly = nil
            var data = frame.data
            current.buffer.writeBuffer(&data)
            if frame.fin { return complete(isText: current.isText, current.buffer) }
            assembly = current
            return checkAssemblySize()
        case .ping:
            guard case .open = state else { return .none }
            return .send(OutboundFrame(opcode: .pong, payload: frame.data))
        case .pong:
            return .pongReceived(frame.data)
        case .connectionClose:
            return receivedClose(frame.data)
        default:
            return fail(.protocolError, "the server sent a frame with the reserved opcode \(frame.opcode)")
        }
    }

    /// The frame decoder rejected the byte stream (a frame over the size limit, a fragmented or
    /// oversized control frame); the socket is still open.
    mutating func decodingFailed(code: WebSocketCloseCode, message: String) -> Action {
        if case .closed = state { return .none }
        return fail(code, message)
    }

    /// The socket closed or failed. `cause` is the socket error, if any.
    mutating func readEnded(cause: (any Error)?) -> Action {
        switch state {
        case .closed:
            return .none
        case .closing(let sent):
            state = .closed
            return .finish(.closed(sent), reply: nil)
        case .open:
            state = .closed
            let message = cause == nil
                ? "the server closed the connection without a close frame (1006)"
                : "the connection failed without a close frame (1006)"
            return .finish(.failed(SwitchboardError(code: .network, message: message, cause: cause)), reply: nil)
        }
    }

    /// The user asked to close.
    /// - Returns: The close frame to send, then wait for the server's (bounded); `nil` if the
    ///   connection is already closing or closed.
    mutating func closeRequested(_ close: WebSocketClose) -> OutboundFrame? {
        guard case .open = state else { return nil }
        state = .closing(sent: close)
        return Self.closeFrame(close)
    }

    /// The close deadline passed without the server's close frame.
    mutating func closeTimerFired() -> Action {
        guard case .closing(let sent) = state else { return .none }
        state = .closed
        return .finish(.closed(sent), reply: nil)
    }

    /// The connection object was released without ``closeRequested(_:)``.
    mutating func released() -> Action {
        switch state {
        case .open:
            state = .closed
            let error = SwitchboardError(code: .network, message: "the connection was released without being closed")
            return .finish(.failed(error), reply: Self.closeFrame(WebSocketClose(code: .goingAway)))
        case .closing(let sent):
            state = .closed
            return .finish(.closed(sent), reply: nil)
        case .closed:
            return .none
        }
    }

    // MARK: Steps

    private mutating func complete(isText: Bool, _ buffer: ByteBuffer) -> Action {
        guard buffer.readableBytes <= maximumMessageSize else {
            return fail(.messageTooBig, "a message of \(buffer.readableBytes) bytes exceeds the limit of \(maximumMessageSize)")
        }
        guard isText else { return .deliver(.binary(buffer.withUnsafeReadableBytes { Data($0) })) }
        guard let text = Self.validText(buffer) else {
            return fail(.invalidPayload, "a text message is not valid UTF-8")
        }
        return .deliver(.text(text))
    }

    private mutating func checkAssemblySize() -> Action {
        guard let size = assembly?.buffer.readableBytes, size > maximumMessageSize else { return .none }
        assembly = nil
        return fail(.messageTooBig, "a fragmented message exceeds the limit of \(maximumMessageSize) bytes")
    }

    private mutating func receivedClose(_ payload: ByteBuffer) -> Action {
        var payload = payload
        let close: WebSocketClose
        switch payload.readableBytes {
        case 0:
            close = WebSocketClose(code: .noStatusReceived)
        case 1:
            return fail(.protocolError, "the server sent a close frame with a 1-byte payload")
        default:
            let code = WebSocketCloseCode(payload.readInteger(as: UInt16.self)!)
            guard Self.isValidOnWire(code) else {
                return fail(.protocolError, "the server sent the close code \(code), which is not allowed on the wire")
            }
            guard let reason = Self.validText(payload) else {
                return fail(.invalidPayload, "the server's close reason is not valid UTF-8")
            }
            close = WebSocketClose(code: code, reason: reason)
        }
        switch state {
        case .open:
            state = .closed
            // Echo the code (a 1005 "no code" becomes an empty close frame).
            return .finish(.closed(close), reply: Self.closeFrame(WebSocketClose(code: close.code)))
        case .closing:
            state = .closed
            return .finish(.closed(close), reply: nil)
        case .closed:
            return .none
        }
    }

    /// Fails the connection: sends a close frame with `code` (unless one was sent already) and
    /// ends the inbound sequence with a protocol violation, or with the client's own close if it
    /// was closing anyway.
    private mutating func fail(_ code: WebSocketCloseCode, _ message: String) -> Action {
        assembly = nil
        switch state {
        case .open:
            state = .closed
            let error = SwitchboardError(
                code: .protocolViolation, message: "\(message); closed with \(code)",
                cause: NIOWebSocketProtocolError(closeCode: code, detail: message))
            return .finish(.failed(error), reply: Self.closeFrame(WebSocketClose(code: code, reason: Self.shortReason(code))))
        case .closing(let sent):
            state = .closed
            return .finish(.closed(sent), reply: nil)
        case .closed:
            return .none
        }
    }

    // MARK: Helpers

    /// The close frame for `close`: the code (if it may be sent) and the reason, cut to the
    /// 123 bytes a control frame leaves for it.
    static func closeFrame(_ close: WebSocketClose) -> OutboundFrame {
        var payload = ByteBuffer()
        if isValidOnWire(close.code) {
            payload.writeInteger(close.code.rawValue)
            var reason = Substring(close.reason)
            while reason.utf8.count > 123 { reason.removeLast() }
            payload.writeString(String(reason))
        }
        return OutboundFrame(opcode: .connectionClose, payload: payload)
    }

    /// Whether a close code may appear in a close frame (RFC 6455 §7.4).
    static func isValidOnWire(_ code: WebSocketCloseCode) -> Bool {
        switch code.rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The buffer as a string if it is valid UTF-8, `nil` otherwise.
    static func validText(_ buffer: ByteBuffer) -> String? {
        buffer.withUnsafeReadableBytes { raw -> String? in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                return String(validating: bytes, as: UTF8.self)
            }
            // Decoding repairs invalid sequences, so the input was valid exactly when nothing changed.
            var text = String(decoding: bytes, as: UTF8.self)
            let unchanged = text.withUTF8 { decoded in
                decoded.count == bytes.count && (bytes.isEmpty || memcmp(decoded.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            }
            return unchanged ? text : nil
        }
    }

    private static func shortReason(_ code: WebSocketCloseCode) -> String {
        switch code {
        case .messageTooBig: "message too big"
        case .invalidPayload: "invalid UTF-8"
        default: "protocol error"
        }
    }
}

extension WebSocketCloseCode {
    /// 1005: the close frame carried no code (never sent on the wire).
    static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1007: a text message was not valid UTF-8.
    static let invalidPayload = WebSocketCloseCode(1007)
    /// 1009: a frame or message was too big.
    static let messageTooBig = WebSocketCloseCode(1009)
}
