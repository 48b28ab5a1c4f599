import Foundation
import NIOCore
import NIOWebSocket
@testable import SwitchboardCore
@testable import SwitchboardNIO
import SwitchboardTesting
import Testing

/// Read back-pressure: a connection whose consumer does not keep up stops reading the socket at
/// its budget, and every message still arrives, once and in order, when the consumer catches up.
@Suite("NIO WebSocket read back-pressure", .timeLimit(.minutes(2)))
struct BackPressureTests {
    /// Waits (yielding, no deadline of its own: the suite's time limit bounds it) until `done`.
    private func eventually(_ done: () -> Bool) async throws {
        while !done() { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("a consumer that reads nothing holds at most its budget and one read's worth; then everything arrives in order")
    func boundedWhileTheConsumerWaits() async throws {
        let count = 12_000
        let padding = String(repeating: "x", count: 1_000)
        let limit = 128 << 10
        let written = LockedValue(0)
        let serverChannel = LockedValue<(any Channel)?>(nil)
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                serverChannel.withLock { $0 = session.channel }
                // The writer suspends once TCP's buffers are full: the server is slowed down.
                for index in 0..<count {
                    try await session.send(text: "\(index):\(padding)")
                    written.withLock { $0 += 1 }
                }
                _ = try await session.nextFrame()
            }
        )) { server in
            let connection = try await makeConnector(maximumBufferedInboundBytes: limit).open(WebSocketRequest(url: server.url()))
            let budget = connection.inboundBudget
            // Nothing is consumed until the server sent everything (what a client without
            // back-pressure lets it do) or cannot write any more (TCP's buffers are full because
            // the client stopped reading).
            var blocked = 0
            while blocked < 20, written.withLock({ $0 }) < count {
                // Not writable for 20 looks in a row: the client stopped reading (a client that
                // reads leaves it unwritable only for moments).
                blocked = serverChannel.withLock({ $0.map { !$0.isWritable } ?? false }) ? blocked + 1 : 0
                try await Task.sleep(for: .milliseconds(10))
            }
            try await eventually { budget.outstanding >= limit }
            var received = 0
            for try await event in connection.inbound {
                guard case .message(.text(let text)) = event else { continue }
                #expect(text.hasPrefix("\(received):"), "message \(received) arrives in order")
                received += 1
                if received == count { break }
            }
            #expect(received == count)
            // One socket read is at most NIO's 64 KiB buffer, up to 4 reads per read event: the
            // bound plus that, never the 15 MiB the server offered.
            let oneReadEvent = 4 * (64 << 10) * (1_000 + InboundBudget.perMessageOverhead) / 1_000
            #expect(budget.peakOutstanding <= limit + oneReadEvent, "peak \(budget.peakOutstanding) bytes")
            #expect(budget.peakOutstanding >= limit, "the budget was reached")
            await connection.close(code: .normalClosure, reason: "")
            #expect(budget.outstanding == 0, "everything consumed was released")
        }
    }

    @Test("a fragmented message larger than the budget still completes: its fragments are set aside")
    func fragmentsDoNotStall() async throws {
        let fragment = [UInt8](repeating: UInt8(ascii: "y"), count: 1_024)
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(opcode: .text, fin: false, bytes: fragment)
                for _ in 0..<62 { try await session.send(opcode: .continuation, fin: false, bytes: fragment) }
                try await session.send(opcode: .continuation, fin: true, bytes: fragment)
                try await session.send(text: "after")
                _ = try await session.nextFrame()
            }
        )) { server in
            let connection = try await makeConnector(maximumBufferedInboundBytes: 4 << 10).open(WebSocketRequest(url: server.url()))
            var texts: [String] = []
            for try await event in connection.inbound {
                guard case .message(.text(let text)) = event else { continue }
                texts.append(text)
                if texts.count == 2 { break }
            }
            #expect(texts.first?.utf8.count == 64 << 10)
            #expect(texts.last == "after")
            await connection.close(code: .normalClosure, reason: "")
        }
    }
}
