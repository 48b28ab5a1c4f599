import Foundation
import NIOCore
import NIOWebSocket
import SwitchboardCore
import SwitchboardNIO
import Testing

@Suite("NIO WebSocket protocol errors and limits", .timeLimit(.minutes(1)))
struct ProtocolErrorTests {
    /// Runs `script` as the server, reads the client's inbound to its end, and returns what the
    /// client reported and the close code it sent.
    private func run(
        maximumFrameSize: Int = 1 << 20, maximumMessageSize: Int = 4 << 20,
        _ script: @escaping @Sendable (ServerSession) async throws -> Void
    ) async throws -> (events: [WebSocketInboundEvent], error: (any Error)?, sentCode: UInt16?) {
        let close = Mailbox<UInt16?>()
        return try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try? await script(session)
                close.put((try? await session.nextClose())?.code ?? nil)
            }
        )) { server in
            let connector = try makeConnector(maximumFrameSize: maximumFrameSize, maximumMessageSize: maximumMessageSize)
            let connection = try await connector.open(WebSocketRequest(url: server.url()))
            let (events, error) = await drain(connection.inbound)
            return (events, error, await close.next() ?? nil)
        }
    }

    private func expectViolation(_ error: (any Error)?, code: UInt16, sourceLocation: SourceLocation = #_sourceLocation) {
        let failure = error as? SwitchboardError
        #expect(failure?.code == .protocolViolation, sourceLocation: sourceLocation)
        #expect((failure?.cause as? NIOWebSocketProtocolError)?.closeCode == WebSocketCloseCode(code), sourceLocation: sourceLocation)
    }

    @Test("a frame over maximumFrameSize closes with 1009 and is reported")
    func frameTooBig() async throws {
        let result = try await run(maximumFrameSize: 64 << 10) { session in
            try await session.send(text: "small")
            try await session.send(opcode: .binary, bytes: [UInt8](repeating: 7, count: (64 << 10) + 1))
        }
        #expect(result.events == [.message(.text("small"))])
        expectViolation(result.error, code: 1009)
        #expect(result.sentCode == 1009)
    }

    @Test("a fragmented message over maximumMessageSize closes with 1009")
    func messageTooBig() async throws {
        let result = try await run(maximumFrameSize: 1 << 10, maximumMessageSize: 2 << 10) { session in
            let chunk = [UInt8](repeating: 65, count: 1 << 10)
            try await session.send(opcode: .text, fin: false, bytes: chunk)
            try await session.send(opcode: .continuation, fin: false, bytes: chunk)
            try await session.send(opcode: .continuation, fin: true, bytes: [65])
        }
        #expect(result.events.isEmpty)
        expectViolation(result.error, code: 1009)
        #expect(result.sentCode == 1009)
    }

    @Test("a text message that is not valid UTF-8 closes with 1007")
    func invalidUTF8() async throws {
        let result = try await run { session in
            try await session.send(opcode: .text, bytes: [0x68, 0x69, 0xC3, 0x28])
        }
        #expect(result.events.isEmpty)
        expectViolation(result.error, code: 1007)
        #expect(result.sentCode == 1007)
    }

    @Test("a continuation without a message to continue closes with 1002")
    func strayContinuation() async throws {
        let result = try await run { session in
            try await session.send(opcode: .continuation, fin: true, bytes: Array("orphan".utf8))
        }
        expectViolation(result.error, code: 1002)
        #expect(result.sentCode == 1002)
    }

    @Test("a masked server frame closes with 1002")
    func maskedServerFrame() async throws {
        let result = try await run { session in
            try await session.send(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: "masked")))
        }
        expectViolation(result.error, code: 1002)
        #expect(result.sentCode == 1002)
    }

    @Test("reserved bits without an extension close with 1002")
    func reservedBits() async throws {
        let result = try await run { session in
            try await session.send(WebSocketFrame(fin: true, rsv1: true, opcode: .text, data: ByteBuffer(string: "compressed?")))
        }
        expectViolation(result.error, code: 1002)
        #expect(result.sentCode == 1002)
    }
}
