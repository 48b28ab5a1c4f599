import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The server's side of one upgraded test connection.
final class ServerSession {
    /// The upgrade request.
    let request: HTTPRequestHead
    /// The TCP channel.
    let channel: any Channel
    private var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
    private let writer: NIOAsyncChannelOutboundWriter<WebSocketFrame>

    init(
        request: HTTPRequestHead, channel: any Channel, frames: NIOAsyncChannelInboundStream<WebSocketFrame>,
        writer: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    ) {
        self.request = request
        self.channel = channel
        self.frames = frames.makeAsyncIterator()
        self.writer = writer
    }

    // MARK: Sending (server frames are never masked)

    func send(_ frame: WebSocketFrame) async throws {
        try await writer.write(frame)
    }

    func send(text: String) async throws {
        try await send(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)))
    }

    func send(opcode: WebSocketOpcode, fin: Bool = true, bytes: some Sequence<UInt8>) async throws {
        try await send(WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(bytes: bytes)))
    }

    /// Sends a close frame with `code` (none if `nil`) and `reason`.
    func sendClose(code: UInt16?, reason: String = "") async throws {
        var payload = ByteBuffer()
        if let code {
            payload.writeInteger(code)
            payload.writeString(reason)
        }
        try await send(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))
    }

    /// Closes TCP at once, without a close frame.
    func dropTCP() async {
        try? await channel.close()
    }

    // MARK: Receiving

    /// The next frame from the client, masking intact (`maskKey`), or nil at the end.
    func nextFrame() async throws -> WebSocketFrame? {
        try await frames.next()
    }

    /// Reads frames until a close frame; returns its code and reason.
    func nextClose() async throws -> (code: UInt16?, reason: String)? {
        while let frame = try await nextFrame() {
            guard frame.opcode == .connectionClose else { continue }
            var payload = frame.unmaskedData
            guard let code = payload.readInteger(as: UInt16.self) else { return (nil, "") }
            return (code, payload.readString(length: payload.readableBytes) ?? "")
        }
        return nil
    }

    /// Reads frames until a data frame; returns its text.
    func nextText() async throws -> String? {
        while let frame = try await nextFrame() {
            if frame.opcode == .text { return String(buffer: frame.unmaskedData) }
        }
        return nil
    }

    /// Waits until the client closes TCP.
    func waitForTCPClose() async {
        while (try? await nextFrame()) != nil {}
        try? await channel.closeFuture.get()
    }
}
