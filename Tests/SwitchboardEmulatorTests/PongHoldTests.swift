import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import SwitchboardEmulator

/// The pong hold behind the `stall` fault, on an embedded channel: pongs wait while a stall
/// lasts, everything else passes, and what is held goes out (or fails) when the stall ends (or
/// the connection closes).
@Suite("Pong hold", .timeLimit(.minutes(1)))
struct PongHoldTests {
    static func frame(_ opcode: WebSocketOpcode, _ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, data: ByteBuffer(string: text))
    }

    /// An embedded channel with a WebSocket frame encoder and the hold in front of it.
    static func channel() throws -> (EmbeddedChannel, PongHold) {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
        let hold = try PongHold.installOnEventLoop(channel)
        return (channel, hold)
    }

    /// The frames written so far, as "pong <payload>" or "other <payload>" (the encoder's
    /// output: unmasked frames with short payloads).
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var bytes = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&part) }
        var frames: [String] = []
        while let header = bytes.readInteger(as: UInt8.self), let length = bytes.readInteger(as: UInt8.self),
            let payload = bytes.readString(length: Int(length & 0x7F))
        {
            frames.append("\(header & 0x0F == 0xA ? "pong" : "other") \(payload)")
        }
        return frames
    }

    static func send(_ channel: EmbeddedChannel, _ frame: WebSocketFrame) -> EventLoopFuture<Void> {
        let promise = channel.embeddedEventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(frame, promise: promise)
        return promise.futureResult
    }

    @Test("pongs wait while a stall lasts, in order, and go out when the last stall ends; other frames pass")
    func holdsPongsDuringAStall() async throws {
        let (channel, hold) = try Self.channel()
        try await Self.send(channel, Self.frame(.pong, "before")).get()
        #expect(try Self.written(channel) == ["pong before"])
        hold.begin()
        hold.begin()  // two stalls overlap
        channel.embeddedEventLoop.run()
        let first = Self.send(channel, Self.frame(.pong, "1"))
        let second = Self.send(channel, Self.frame(.pong, "2"))
        try await Self.send(channel, Self.frame(.connectionClose, "close")).get()
        #expect(try Self.written(channel) == ["other close"], "the pongs are held; a close frame is not")
        hold.end()
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel).isEmpty, "one stall is still on")
        hold.end()
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["pong 1", "pong 2"])
        try await first.get()
        try await second.get()
        _ = try channel.finish()
    }

    @Test("held pongs fail when the connection closes during the stall")
    func failsHeldPongsOnClose() async throws {
        let (channel, hold) = try Self.channel()
        hold.begin()
        channel.embeddedEventLoop.run()
        let held = Self.send(channel, Self.frame(.pong, "held"))
        _ = try? channel.finish()
        await #expect(throws: (any Error).self) { try await held.get() }
    }
}
