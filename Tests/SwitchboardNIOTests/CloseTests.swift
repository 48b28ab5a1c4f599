import Foundation
import NIOCore
import NIOPosix
import SwitchboardCore
import SwitchboardNIO
import SwitchboardTesting
import Testing

@Suite("NIO WebSocket close handshake", .timeLimit(.minutes(1)))
struct CloseTests {
    @Test("close sends code and reason, waits for the server's close frame and reports it", arguments: Scheme.allCases)
    func clientCloses(scheme: Scheme) async throws {
        let received = Mailbox<(code: UInt16?, reason: String)?>()
        let order = Mailbox<String?>()
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                order.put(try await session.nextText())
                let close = try await session.nextClose()
                received.put(close)
                try await session.sendClose(code: 4000, reason: "see you")
                await session.waitForTCPClose()
            }
        )) { server in
            // The server's answer is what is tested, so no close deadline of real time may pass
            // first: on a loaded machine the TLS case once took more than the default 5 s, and the
            // client reported its own close. (The deadline has its own test, on a manual clock.)
            let connector = try makeConnector(closeTimeout: .seconds(3600))
            let connection = try await connector.open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            try await connection.send(.text("last words"))
            await connection.close(code: WebSocketCloseCode(4000), reason: "client leaving")
            #expect(await order.next() == "last words", "a message sent before close arrives before the close frame")
            let close = try #require(await received.next() ?? nil)
            #expect(close.code == 4000)
            #expect(close.reason == "client leaving")
            let (events, error) = await drain(connection.inbound)
            #expect(error == nil)
            #expect(events == [.closed(WebSocketClose(code: WebSocketCloseCode(4000), reason: "see you"))])
            let sendError = await #expect(throws: SwitchboardError.self) { try await connection.send(.text("late")) }
            #expect(sendError?.code == .network)
            await connection.close(code: .normalClosure, reason: "twice is harmless")
            var closed = server.closedConnections.makeAsyncIterator()
            #expect(await closed.next() != nil)
        }
    }

    @Test("a server close frame is answered with its code and surfaces as .closed(code, reason)", arguments: Scheme.allCases)
    func serverCloses(scheme: Scheme) async throws {
        let reply = Mailbox<(code: UInt16?, reason: String)?>()
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(text: "before")
                try await session.sendClose(code: 4403, reason: "forbidden")
                reply.put(try await session.nextClose())
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            let (events, error) = await drain(connection.inbound)
            #expect(error == nil)
            #expect(events == [.message(.text("before")), .closed(WebSocketClose(code: WebSocketCloseCode(4403), reason: "forbidden"))])
            let answer = try #require(await reply.next() ?? nil)
            #expect(answer.code == 4403)
            await #expect(throws: SwitchboardError.self) { try await connection.send(.text("after")) }
        }
    }

    @Test("a server that drops TCP right after its close frame still gives .closed and no error", arguments: Scheme.allCases)
    func dropAfterClose(scheme: Scheme) async throws {
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(text: "bye")
                try await session.sendClose(code: 1001, reason: "going away")
                await session.dropTCP()
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            let (events, error) = await drain(connection.inbound)
            #expect(error == nil)
            #expect(events == [.message(.text("bye")), .closed(WebSocketClose(code: .goingAway, reason: "going away"))])
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("with its event loop group shut down by its user, a connection's send and ping throw at once and close returns")
    func eventLoopGroupShutDown() async throws {
        try await TestWebSocketServer.with(tls: nil, mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in await session.waitForTCPClose() }
        )) { server in
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            var configuration = NIOWebSocketConnector.Configuration(eventLoopGroup: group)
            configuration.closeTimeout = .seconds(5)
            let connection = try await NIOWebSocketConnector(configuration: configuration).open(WebSocketRequest(url: server.url(secure: false)))
            try await connection.send(.text("before"))
            try await group.shutdownGracefully()
            // Without the check each of these hopped onto a loop that no longer runs anything.
            let sendError = await #expect(throws: SwitchboardError.self) { try await connection.send(.text("after")) }
            #expect(sendError?.code == .network)
            await #expect(throws: SwitchboardError.self) { try await connection.sendPing() }
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a close frame without a code is reported as 1005")
    func closeWithoutCode() async throws {
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.sendClose(code: nil)
                _ = try await session.nextClose()
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url()))
            let (events, error) = await drain(connection.inbound)
            #expect(error == nil)
            #expect(events == [.closed(WebSocketClose(code: WebSocketCloseCode(1005)))])
        }
    }

    @Test("a server that drops TCP without a close frame ends inbound with a network error (1006)", arguments: Scheme.allCases)
    func dropWithoutClose(scheme: Scheme) async throws {
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(text: "one")
                await session.dropTCP()
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            let (events, error) = await drain(connection.inbound)
            #expect(events == [.message(.text("one"))])
            let failure = try #require(error as? SwitchboardError)
            #expect(failure.code == .network)
            #expect(failure.message.contains("1006"))
            await #expect(throws: SwitchboardError.self) { try await connection.send(.text("after")) }
        }
    }

    /// Regression guard: NIO removes the HTTP decoder one tick after the 101, so a frame and a
    /// FIN arriving in the same read as the 101 used to lose the frame (about 1 run in 10).
    @Test("a message sent right behind the 101 and followed at once by a TCP drop is never lost",
          arguments: Scheme.allCases, 0..<40)
    func messageThenDropRightAfterUpgrade(scheme: Scheme, run: Int) async throws {
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(text: "first and last")
                await session.dropTCP()
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(secure: scheme.isSecure)))
            let (events, error) = await drain(connection.inbound)
            #expect(events == [.message(.text("first and last"))])
            #expect((error as? SwitchboardError)?.code == .network)
        }
    }

    @Test("a server that never answers the close frame: TCP closes after the close timeout on the injected clock")
    func closeTimeout() async throws {
        let clock = ManualClock()
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in await session.waitForTCPClose() }
        )) { server in
            let connection = try await makeConnector(clock: clock, closeTimeout: .seconds(5)).open(WebSocketRequest(url: server.url()))
            async let closing: Void = connection.close(code: .normalClosure, reason: "bye")
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(5))
            await closing
            let (events, error) = await drain(connection.inbound)
            #expect(error == nil)
            #expect(events == [.closed(WebSocketClose(code: .normalClosure, reason: "bye"))])
            var closed = server.closedConnections.makeAsyncIterator()
            #expect(await closed.next() != nil, "the client closed TCP")
        }
    }

    @Test("releasing a connection without close sends 1001 and closes the socket")
    func released() async throws {
        let received = Mailbox<(code: UInt16?, reason: String)?>()
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                received.put(try await session.nextClose())
                await session.waitForTCPClose()
            }
        )) { server in
            var connection: NIOWebSocketConnection? = try await makeConnector().open(WebSocketRequest(url: server.url()))
            #expect(connection?.subprotocol == nil)
            connection = nil
            let close = try #require(await received.next() ?? nil)
            #expect(close.code == 1001)
            var closed = server.closedConnections.makeAsyncIterator()
            #expect(await closed.next() != nil)
        }
    }
}
