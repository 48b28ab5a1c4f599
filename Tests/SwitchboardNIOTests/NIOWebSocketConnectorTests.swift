import Foundation
import NIOCore
import NIOPosix
import SwitchboardCore
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// Runs `body` with a fresh test server, stopping it afterwards.
private func withServer(tls: SelfSignedCertificate? = nil, _ body: (TestWebSocketServer) async throws -> Void) async throws {
    let server = try await TestWebSocketServer.start(tls: try tls?.serverContext())
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

private func nextText(_ iterator: inout WebSocketInbound.AsyncIterator) async throws -> String? {
    guard case .message(.text(let text))? = try await iterator.next() else { return nil }
    return text
}

@Suite("NIO WebSocket engine", .timeLimit(.minutes(1)))
struct NIOWebSocketConnectorTests {
    let connector = NIOWebSocketConnector()

    @Test("offers every subprotocol, reports the server's choice and sends custom headers")
    func subprotocolsAndHeaders() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(
                url: server.url("/event/realtime"),
                subprotocols: ["aws-appsync-event-ws", "header-eyJhIjoiYiJ9"],
                headers: [("X-Custom", "one"), ("x-api-key", "da2-key")]))
            #expect(connection.subprotocol == "aws-appsync-event-ws")
            let headers = try #require(server.seen.upgradeHeaders.first)
            #expect(headers.first { $0.name.lowercased() == "sec-websocket-protocol" }?.value == "aws-appsync-event-ws, header-eyJhIjoiYiJ9")
            #expect(headers.first { $0.name == "X-Custom" }?.value == "one")
            #expect(headers.first { $0.name.lowercased() == "host" }?.value == "127.0.0.1:\(server.port)")
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a server that chooses no offered subprotocol fails the connect", arguments: ["none", "bogus"])
    func subprotocolNotChosen(choice: String) async throws {
        try await withServer { server in
            do {
                _ = try await connector.connect(WebSocketRequest(url: server.url("/?choose=\(choice)"), subprotocols: ["graphql-ws", "header-c2VjcmV0"]))
                Issue.record("expected a handshake error")
            } catch let error as WebSocketHandshakeError {
                #expect(error.reason == .subprotocolNotNegotiated(offered: ["graphql-ws", "header-c2VjcmV0"], chosen: choice == "none" ? nil : choice))
                #expect(!"\(error)".contains("header-c2VjcmV0"), "credentials never reach an error message")
            }
        }
    }

    @Test("a 401 answer becomes a handshake error carrying the status and the body")
    func rejectedUpgrade() async throws {
        try await withServer { server in
            do {
                _ = try await connector.connect(WebSocketRequest(url: server.url("/reject")))
                Issue.record("expected a handshake error")
            } catch let error as WebSocketHandshakeError {
                #expect(error.status == 401)
                #expect(error.isAuthorizationFailure)
                #expect(error.body == RejectingHTTPHandler.body)
            }
        }
    }

    @Test("text and binary messages round-trip; client frames are masked")
    func roundTripAndMasking() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("echo:héllo"))
            #expect(try await nextText(&inbound) == "héllo")
            try await connection.send(.text("binary"))
            #expect(try await inbound.next() == .message(.binary(Data([1, 2, 3]))))
            #expect(server.seen.frames.count == 2)
            #expect(server.seen.frames.allSatisfy { $0.masked })
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("fragments are reassembled, with a ping between them answered")
    func fragments() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("fragments"))
            #expect(try await nextText(&inbound) == "hello wörld")
            try await connection.send(.text("echo:after"))
            #expect(try await nextText(&inbound) == "after")
            #expect(server.seen.pongs == ["mid"], "the server's ping was answered with its payload")
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a client ping returns when the pong arrives")
    func clientPing() async throws {
        try await withServer { server in
            let connector = NIOWebSocketConnector()
            let connection = try await connector.open(WebSocketRequest(url: server.url()))
            try await connection.ping(payload: Data("p1".utf8))
            try await connection.ping()
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("close code and reason travel both ways")
    func closeHandshake() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("close:4403:forbidden"))
            #expect(try await inbound.next() == .closed(WebSocketClose(code: WebSocketCloseCode(4403), reason: "forbidden")))
            #expect(try await inbound.next() == nil)
            await expectSend(fails: connection)

            let second = try await connector.connect(WebSocketRequest(url: server.url()))
            var secondInbound = second.inbound.makeAsyncIterator()
            await second.close(code: .goingAway, reason: "rotating")
            #expect(server.seen.clientCloses.last == WebSocketClose(code: .goingAway, reason: "rotating"))
            #expect(try await secondInbound.next() == .closed(WebSocketClose(code: .goingAway, reason: "rotating")))
        }
    }

    @Test("a server that drops TCP right after its close frame still reports its close")
    func closeThenDrop() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("close-drop:4001"))
            #expect(try await inbound.next() == .closed(WebSocketClose(code: WebSocketCloseCode(4001), reason: "bye")))
            #expect(try await inbound.next() == nil)
        }
    }

    @Test("a drop without a close frame reports 1006")
    func dropWithoutClose() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("drop"))
            #expect(try await inbound.next() == .closed(WebSocketClose(code: .abnormalClosure, reason: "connection closed without a close frame")))
            #expect(try await inbound.next() == nil)
        }
    }

    @Test("a 1 MiB message arrives whole with the default limits")
    func largeMessage() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("big:\(1 << 20)"))
            #expect(try await nextText(&inbound)?.utf8.count == 1 << 20)
            try await connection.send(.text("bigfragments:\(3 << 20):3"))
            #expect(try await nextText(&inbound)?.utf8.count == 3 << 20)
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a frame or a message above the limit closes with 1009 and ends inbound with protocolViolation", arguments: ["big:2048", "bigfragments:3000:3"])
    func overLimit(command: String) async throws {
        try await withServer { server in
            let connector = NIOWebSocketConnector(configuration: .init(maximumFrameSize: 1500, maximumMessageSize: 2000))
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            try await connection.send(.text(command))
            await expectProtocolViolation(connection.inbound)
            await waitUntil { server.seen.clientCloses.contains { $0.code.rawValue == 1009 } }
        }
    }

    @Test("a text message that is not UTF-8 closes with 1007")
    func invalidUTF8() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            try await connection.send(.text("invalid-utf8"))
            await expectProtocolViolation(connection.inbound)
            await waitUntil { server.seen.clientCloses.contains { $0.code.rawValue == 1007 } }
        }
    }

    @Test("10,000 frames arrive in order")
    func ordering() async throws {
        try await withServer { server in
            let connection = try await connector.connect(WebSocketRequest(url: server.url()))
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("blast:10000"))
            for index in 0..<10_000 {
                let text = try await nextText(&inbound)
                guard text == "\(index)" else {
                    Issue.record("frame \(index) was \(text ?? "nil")")
                    return
                }
            }
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a refused connection is a network error")
    func refused() async throws {
        // Bind, note the port, close: nothing listens there any more.
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        await #expect(throws: SwitchboardError.self) {
            do {
                _ = try await connector.connect(WebSocketRequest(url: URL(string: "ws://127.0.0.1:\(port)/")!))
            } catch let error as SwitchboardError {
                #expect(error.code == .network)
                throw error
            }
        }
    }

    @Test("a server that never answers the upgrade times out on the injected clock")
    func upgradeTimeout() async throws {
        // A TCP server that accepts and never writes.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        let clock = ManualClock()
        let connector = NIOWebSocketConnector(configuration: .init(upgradeTimeout: .seconds(10), clock: clock))
        async let attempt: Void = { _ = try await connector.connect(WebSocketRequest(url: URL(string: "ws://127.0.0.1:\(port)/")!)) }()
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1, "not yet")
        clock.advance(by: .seconds(1))
        do {
            try await attempt
            Issue.record("expected a timeout")
        } catch let error as SwitchboardError {
            #expect(error.code == .timeout)
        }
        try await silent.close()
    }

    @Test("URLs other than ws and wss are a configuration error")
    func badURL() async {
        for url in ["http://127.0.0.1/", "ws:///nohost"] {
            await #expect(throws: SwitchboardError.self) {
                _ = try await connector.connect(WebSocketRequest(url: URL(string: url)!))
            }
        }
    }

    @Test("wss to 127.0.0.1 works without SNI, trusting a self-signed certificate")
    func secure() async throws {
        let certificate = try SelfSignedCertificate()
        try await withServer(tls: certificate) { server in
            let connector = NIOWebSocketConnector(configuration: .init(tls: certificate.clientConfiguration()))
            let connection = try await connector.connect(WebSocketRequest(url: server.url(secure: true), subprotocols: ["graphql-transport-ws"]))
            #expect(connection.subprotocol == "graphql-transport-ws")
            var inbound = connection.inbound.makeAsyncIterator()
            try await connection.send(.text("echo:over tls"))
            #expect(try await nextText(&inbound) == "over tls")
            await connection.close(code: .normalClosure, reason: "")

            // Without trusting the certificate the handshake fails as a network error.
            await #expect(throws: SwitchboardError.self) {
                _ = try await NIOWebSocketConnector().connect(WebSocketRequest(url: server.url(secure: true)))
            }
        }
    }
}

private func expectProtocolViolation(_ inbound: WebSocketInbound) async {
    do {
        for try await event in inbound {
            if case .message = event { Issue.record("unexpected message \(event)") }
        }
        Issue.record("inbound ended without an error")
    } catch let error as SwitchboardError {
        #expect(error.code == .protocolViolation)
    } catch {
        Issue.record("unexpected error \(error)")
    }
}

private func expectSend(fails connection: any WebSocketConnection) async {
    await #expect(throws: SwitchboardError.self) { try await connection.send(.text("late")) }
}

/// Polls a condition set by the server's event loop (cheap yields, no wall-clock sleeping).
private func waitUntil(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}
