import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
@testable import SwitchboardCore
@testable import SwitchboardNIO
import SwitchboardTesting
import Testing

/// The protocol on the event loop: on an `EmbeddedChannel` nothing runs unless the test runs it,
/// so a pong, a close frame or a message that is there right after a frame was written in was
/// made by the channel handler itself, with no task in between.
@Suite("NIO WebSocket protocol in the channel handler", .timeLimit(.minutes(1)))
struct ConnectionHandlerTests {
    /// An upgraded embedded channel, connected (active) with the protocol handler installed and,
    /// unless told otherwise, started.
    private struct Harness {
        let channel: EmbeddedChannel
        let upgraded: UpgradedChannel
        let reads: ReadCounter

        init(budget: Int = 1 << 20, start: Bool = true) async throws {
            channel = EmbeddedChannel()
            reads = ReadCounter()
            try channel.pipeline.syncOperations.addHandler(reads)
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
            let settings = WebSocketConnectionHandler.Settings(
                maximumMessageSize: 1 << 20, maximumFrameSize: 1 << 20, closeTimeout: .seconds(5),
                clock: ManualClock(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            upgraded = try UpgradedChannel.install(on: channel, budget: InboundBudget(limit: budget), settings: settings)
            // Counted from here: what the upgrade would hold back.
            reads.count = 0
            if start { self.start() }
        }

        func start() {
            upgraded.start()
            channel.embeddedEventLoop.run()
        }

        /// A frame from the server (unmasked).
        func receive(_ opcode: WebSocketOpcode, _ payload: ByteBuffer, fin: Bool = true) throws {
            try channel.writeInbound(WebSocketFrame(fin: fin, opcode: opcode, data: payload))
        }

        /// The next frame the client wrote (its payload as written: the encoder masks it on the
        /// wire); nil if none.
        func sent() throws -> (frame: WebSocketFrame, payload: ByteBuffer)? {
            guard let frame = try channel.readOutbound(as: WebSocketFrame.self) else { return nil }
            return (frame, frame.data)
        }

        /// Runs a user command as the connection does: hopping onto the event loop.
        func command(_ body: @escaping @Sendable (WebSocketConnectionHandler) -> Void) {
            upgraded.onEventLoop(body)
            channel.embeddedEventLoop.run()
        }

        func send(_ message: WebSocketMessage) async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                command { $0.send(message, continuation: continuation) }
            }
        }
    }

    /// Counts the reads that pass the protocol handler towards the socket.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Never
        var count = 0

        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    private static func closePayload(_ code: UInt16, _ reason: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(code)
        buffer.writeString(reason)
        return buffer
    }

    @Test("a ping is answered by the handler before the frame's write returns, masked and with its payload")
    func pingAnsweredOnTheEventLoop() async throws {
        let harness = try await Harness()
        try harness.receive(.ping, ByteBuffer(string: "are you there"))
        let pong = try #require(try harness.sent())
        #expect(pong.frame.opcode == .pong)
        #expect(pong.payload == ByteBuffer(string: "are you there"))
        #expect(pong.frame.maskKey != nil)
        try harness.receive(.text, ByteBuffer(string: "hello"))
        var events = harness.upgraded.inbound.makeAsyncIterator()
        #expect(try await events.next() == .message(.text("hello")))
    }

    @Test("frames that arrive before the connection starts wait: nothing is answered until then")
    func framesWaitForStart() async throws {
        let harness = try await Harness(start: false)
        try harness.receive(.ping, ByteBuffer(string: "early"))
        try harness.receive(.text, ByteBuffer(string: "first"))
        #expect(try harness.sent() == nil, "a connection the connector may still refuse answers nothing")
        #expect(harness.reads.count == 0)
        harness.start()
        let pong = try #require(try harness.sent())
        #expect(pong.frame.opcode == .pong)
        #expect(pong.payload == ByteBuffer(string: "early"))
        #expect(harness.reads.count == 1, "starting asks for the first read")
        var events = harness.upgraded.inbound.makeAsyncIterator()
        #expect(try await events.next() == .message(.text("first")))
    }

    @Test("a message and the socket's end that come before the start survive the channel closing: both are delivered at start")
    func dropBeforeStart() async throws {
        let harness = try await Harness(start: false)
        try harness.receive(.text, ByteBuffer(string: "first and last"))
        try await harness.channel.close()
        harness.channel.embeddedEventLoop.run()
        harness.start()
        let (events, error) = await drain(harness.upgraded.inbound)
        #expect(events == [.message(.text("first and last"))])
        #expect((error as? SwitchboardError)?.code == .network)
    }

    @Test("the close handshake runs in the handler: close frame out, sends refused, the server's close ends it and closes the channel")
    func closeHandshakeOnTheEventLoop() async throws {
        let harness = try await Harness()
        try await harness.send(.text("last words"))
        #expect(try harness.sent()?.payload == ByteBuffer(string: "last words"))
        harness.command { $0.close(WebSocketClose(code: WebSocketCloseCode(4000), reason: "client leaving")) }
        let close = try #require(try harness.sent())
        #expect(close.frame.opcode == .connectionClose)
        #expect(close.payload == Self.closePayload(4000, "client leaving"))
        let sendError = await #expect(throws: SwitchboardError.self) { try await harness.send(.text("late")) }
        #expect(sendError?.code == .network)
        #expect(try harness.sent() == nil, "nothing is sent after the close frame")
        #expect(harness.channel.isActive)
        try harness.receive(.connectionClose, Self.closePayload(4000, "see you"))
        #expect(!harness.channel.isActive, "the handler closed the channel on the server's answer")
        #expect(try harness.sent() == nil, "a close the client started is not answered again")
        let (events, error) = await drain(harness.upgraded.inbound)
        #expect(error == nil)
        #expect(events == [.closed(WebSocketClose(code: WebSocketCloseCode(4000), reason: "see you"))])
    }

    @Test("a server close is echoed and the channel closed by the handler; later sends fail with .network")
    func serverCloseEchoed() async throws {
        let harness = try await Harness()
        try harness.receive(.connectionClose, Self.closePayload(4403, "forbidden"))
        let echo = try #require(try harness.sent())
        #expect(echo.frame.opcode == .connectionClose)
        #expect(echo.payload == Self.closePayload(4403, ""))
        harness.channel.embeddedEventLoop.run()
        #expect(!harness.channel.isActive)
        let sendError = await #expect(throws: SwitchboardError.self) { try await harness.send(.text("after")) }
        #expect(sendError?.code == .network)
        let (events, _) = await drain(harness.upgraded.inbound)
        #expect(events == [.closed(WebSocketClose(code: WebSocketCloseCode(4403), reason: "forbidden"))])
    }

    @Test("released without close: the handler sends 1001, closes the channel and fails inbound")
    func releasedSendsGoingAway() async throws {
        let harness = try await Harness()
        harness.command { $0.released() }
        let close = try #require(try harness.sent())
        #expect(close.payload == Self.closePayload(1001, ""))
        harness.channel.embeddedEventLoop.run()
        #expect(!harness.channel.isActive)
        let (_, error) = await drain(harness.upgraded.inbound)
        #expect((error as? SwitchboardError)?.code == .network)
    }

    @Test("back-pressure: reads are held at the budget and asked for again when half of it is consumed")
    func readsHeldAtTheBudget() async throws {
        let harness = try await Harness(budget: 4_000)
        #expect(harness.reads.count == 1)
        // Two messages of 1,700 bytes: 2 × (1,700 + 320) charged, over the 4,000 bound.
        let payload = String(repeating: "x", count: 1_700)
        try harness.receive(.text, ByteBuffer(string: payload))
        harness.channel.read()
        #expect(harness.reads.count == 2, "under the bound, reads pass")
        try harness.receive(.text, ByteBuffer(string: payload))
        #expect(harness.upgraded.budget.outstanding == 2 * (1_700 + InboundBudget.perMessageOverhead))
        harness.channel.read()
        harness.channel.embeddedEventLoop.run()
        #expect(harness.reads.count == 2, "at the bound, the read is held back")
        var events = harness.upgraded.inbound.makeAsyncIterator()
        // Taking the first message leaves 2,020 bytes: still over half the bound (2,000).
        #expect(try await events.next() == .message(.text(payload)))
        harness.channel.embeddedEventLoop.run()
        #expect(harness.reads.count == 2)
        #expect(try await events.next() == .message(.text(payload)))
        harness.channel.embeddedEventLoop.run()
        #expect(harness.reads.count == 3, "at half the bound, the held read is made")
        #expect(harness.upgraded.budget.outstanding == 0)
    }

    @Test("a control frame's charge is given back at once; a fragment's is set aside until its message is whole")
    func chargesPerFrame() async throws {
        let harness = try await Harness(budget: 100_000)
        let budget = harness.upgraded.budget
        try harness.receive(.ping, ByteBuffer(string: "p"))
        #expect(budget.outstanding == 0)
        try harness.receive(.text, ByteBuffer(string: "ab"), fin: false)
        #expect(budget.outstanding == 0, "a fragment does not count")
        try harness.receive(.continuation, ByteBuffer(string: "c"), fin: true)
        #expect(budget.outstanding == 3 + 2 * InboundBudget.perMessageOverhead, "the message carries every frame's charge")
        var events = harness.upgraded.inbound.makeAsyncIterator()
        #expect(try await events.next() == .message(.text("abc")))
        #expect(budget.outstanding == 0)
    }
}
