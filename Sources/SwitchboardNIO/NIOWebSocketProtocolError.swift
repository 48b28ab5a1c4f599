import SwitchboardCore

/// The engine failed the connection because the server broke the WebSocket protocol or a limit.
///
/// It is the `cause` of the ``/SwitchboardCore/SwitchboardError`` (code
/// ``/SwitchboardCore/SwitchboardError/Code/protocolViolation``) that ends ``NIOWebSocketConnection/inbound``,
/// and tells which close code the engine sent:
///
/// | close code | when |
/// |---|---|
/// | 1002 | a broken frame: reserved bits or opcode, a masked server frame, a stray continuation, a fragmented or oversized control frame, a bad close payload |
/// | 1007 | a text message (or close reason) that is not valid UTF-8 |
/// | 1009 | a frame over `maximumFrameSize` or a message over `maximumMessageSize` |
public struct NIOWebSocketProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The close code the engine sent to the server.
    public var closeCode: WebSocketCloseCode
    /// What was wrong, for people.
    public var detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - closeCode: The close code sent.
    ///   - detail: What was wrong.
    public init(closeCode: WebSocketCloseCode, detail: String) {
        self.closeCode = closeCode
        self.detail = detail
    }

    public var description: String { "WebSocket protocol error (closed with \(closeCode)): \(detail)" }
}
