import Foundation
import NIOCore
import NIOWebSocket
import SwitchboardCore
import SwitchboardNIO
import SwitchboardTesting
import Testing

@Suite("NIO WebSocket frames", .timeLimit(.minutes(1)))
struct FrameTests {
    @Test("client frames are masked, each with its own key, and arrive intact", arguments: Scheme.allCases)
    func masking(scheme: Scheme) async throws {
        let masks = Mailbox<[WebSocketMaskingKey?]>()
        let texts = Mailbox<[String]>()
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                var keys: [WebSocketMaskingKey?] = []
                var received: [String] = []
                while received.count < 4, let frame = try await session.nextFrame() {
                    keys.append(frame.maskKey)
                    received.append(frame.opcode == .binary ? "binary:\(Array(frame.unmaskedData.readableBytesView))" : String(buffer: frame.unmaskedData))
                }
                masks.put(keys)
                texts.put(received)
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            for index in 0..<3 { try await connection.send(.text("message \(index)")) }
            try await connection.send(.binary(Data([1, 2, 3])))
            #expect(await texts.next() == ["message 0", "message 1", "message 2", "binary:[1, 2, 3]"])
            let keys = try #require(await masks.next())
            #expect(keys.allSatisfy { $0 != nil }, "every client frame carries a mask")
            #expect(Set(keys.compactMap { $0.map(Array.init) }).count > 1, "masks are not reused")
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a server ping is answered with a pong carrying the same payload", arguments: Scheme.allCases)
    func pingAnswered(scheme: Scheme) async throws {
        let pong = Mailbox<WebSocketFrame>()
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(opcode: .ping, bytes: Array("are you there".utf8))
                while let frame = try await session.nextFrame() {
                    if frame.opcode == .pong {
                        pong.put(frame)
                        return
                    }
                }
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            let frame = try #require(await pong.next())
            #expect(String(buffer: frame.unmaskedData) == "are you there")
            #expect(frame.maskKey != nil)
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("sendPing returns the round trip measured on the injected clock")
    func clientPing() async throws {
        let clock = ManualClock()
        let pingSeen = Mailbox<String>()
        let sendPong = Mailbox<Void>()
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                while let frame = try await session.nextFrame() {
                    if frame.opcode == .connectionClose {
                        try await session.sendClose(code: 1000)
                        return
                    }
                    guard frame.opcode == .ping else { continue }
                    pingSeen.put(String(buffer: frame.unmaskedData))
                    _ = await sendPong.next()
                    try await session.send(opcode: .pong, bytes: Array("unsolicited".utf8))
                    try await session.send(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                }
            }
        )) { server in
            let connection = try await makeConnector(clock: clock).open(WebSocketRequest(url: server.url()))
            async let roundTrip = connection.sendPing(Data("rtt-1".utf8))
            #expect(await pingSeen.next() == "rtt-1")
            clock.advance(by: .milliseconds(250))
            sendPong.put(())
            #expect(try await roundTrip == .milliseconds(250))
            await connection.close(code: .normalClosure, reason: "")
            await #expect(throws: SwitchboardError.self) { try await connection.sendPing() }
        }
    }

    @Test("fragmented messages are reassembled, with a ping between fragments", arguments: Scheme.allCases)
    func fragments(scheme: Scheme) async throws {
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(opcode: .text, fin: false, bytes: Array("Hel".utf8))
                try await session.send(opcode: .ping, bytes: [1])
                // "ö" split across two fragments: only the whole message is valid UTF-8.
                try await session.send(opcode: .continuation, fin: false, bytes: Array("lo w".utf8) + [0xC3])
                try await session.send(opcode: .continuation, fin: true, bytes: [0xB6] + Array("rld".utf8))
                try await session.send(opcode: .binary, fin: false, bytes: [1, 2])
                try await session.send(opcode: .continuation, fin: false, bytes: [])
                try await session.send(opcode: .continuation, fin: true, bytes: [3])
                try await session.send(text: "single")
                _ = try await session.nextClose()
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            var events = connection.inbound.makeAsyncIterator()
            #expect(try await events.next() == .message(.text("Hello wörld")))
            #expect(try await events.next() == .message(.binary(Data([1, 2, 3]))))
            #expect(try await events.next() == .message(.text("single")))
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a 1 MiB message is received with the default limits", arguments: [WebSocketOpcode.text, .binary])
    func oneMebibyte(opcode: WebSocketOpcode) async throws {
        let payload = (0..<(1 << 20)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(opcode: opcode, bytes: payload)
                _ = try await session.nextClose()
            }
        )) { server in
            let connection = try await NIOWebSocketConnector().open(WebSocketRequest(url: server.url()))
            var events = connection.inbound.makeAsyncIterator()
            let expected: WebSocketMessage = opcode == .text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(Data(payload))
            #expect(try await events.next() == .message(expected))
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("10,000 frames arrive complete and in order", arguments: Scheme.allCases)
    func ordering(scheme: Scheme) async throws {
        let count = 10_000
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                for index in 0..<count { try await session.send(text: "\(index)") }
                try await session.sendClose(code: 1000, reason: "done")
                _ = try await session.nextClose()
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            let (events, error) = await drain(connection.inbound)
            #expect(error == nil)
            #expect(events.count == count + 1)
            #expect(events.dropLast() == (0..<count).map { .message(.text("\($0)")) })
            #expect(events.last == .closed(WebSocketClose(code: .normalClosure, reason: "done")))
        }
    }
}

@Suite("NIO WebSocket concurrent use", .timeLimit(.minutes(1)))
struct ConcurrencyTests {
    @Test("sends from several tasks arrive whole, each task's in its order, and close waits behind them")
    func concurrentSends() async throws {
        let received = Mailbox<[String]>()
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                var texts: [String] = []
                while let frame = try await session.nextFrame() {
                    if frame.opcode == .connectionClose {
                        try await session.sendClose(code: 1000)
                        break
                    }
                    texts.append(String(buffer: frame.unmaskedData))
                }
                received.put(texts)
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url()))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sender in 0..<4 {
                    group.addTask {
                        for index in 0..<250 { try await connection.send(.text("\(sender):\(index)")) }
                    }
                }
                try await group.waitForAll()
            }
            await connection.close(code: .normalClosure, reason: "")
            let texts = try #require(await received.next())
            #expect(texts.count == 1000)
            for sender in 0..<4 {
                #expect(texts.filter { $0.hasPrefix("\(sender):") } == (0..<250).map { "\(sender):\($0)" })
            }
        }
    }

    @Test("a cancelled sendPing stops waiting; a later ping still gets its pong")
    func cancelledPing() async throws {
        let pings = Mailbox<String>()
        let answer = Mailbox<Void>()
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                while let frame = try await session.nextFrame() {
                    if frame.opcode == .connectionClose {
                        try await session.sendClose(code: 1000)
                        return
                    }
                    guard frame.opcode == .ping else { continue }
                    let payload = String(buffer: frame.unmaskedData)
                    pings.put(payload)
                    if payload == "second" {
                        _ = await answer.next()
                        try await session.send(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                    }
                }
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url()))
            let first = Task { try await connection.sendPing(Data("first".utf8)) }
            #expect(await pings.next() == "first")
            first.cancel()
            await #expect(throws: CancellationError.self) { try await first.value }
            async let second = connection.sendPing(Data("second".utf8))
            #expect(await pings.next() == "second")
            answer.put(())
            _ = try await second
            await #expect(throws: SwitchboardError.self) { try await connection.sendPing(Data(count: 126)) }
            await connection.close(code: .normalClosure, reason: "")
        }
    }
}
