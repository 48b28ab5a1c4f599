import Foundation
import Logging
import NIOHTTP1
import SwitchboardCore
import SwitchboardNIO
import SwitchboardTesting
import Testing

@Suite("NIO WebSocket handshake", .timeLimit(.minutes(1)))
struct HandshakeTests {
    @Test("every subprotocol is offered in one header and the server's choice is reported", arguments: Scheme.allCases)
    func subprotocolChosen(scheme: Scheme) async throws {
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: { _ in .accept(subprotocol: "aws-appsync-event-ws") },
            session: { session in try await session.send(text: "hello") }
        )) { server in
            let request = WebSocketRequest(
                url: server.url(secure: scheme.isSecure),
                subprotocols: ["graphql-ws", "aws-appsync-event-ws", "header-eyJzZWNyZXQiOiJrZXkifQ"])
            let connection = try await makeConnector().open(request)
            var requests = server.requests.makeAsyncIterator()
            let head = try #require(await requests.next())
            #expect(head.headers["Sec-WebSocket-Protocol"] == ["graphql-ws, aws-appsync-event-ws, header-eyJzZWNyZXQiOiJrZXkifQ"])
            #expect(connection.subprotocol == "aws-appsync-event-ws")
            var events = connection.inbound.makeAsyncIterator()
            #expect(try await events.next() == .message(.text("hello")))
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("no subprotocol offered and none chosen: connected with nil")
    func noSubprotocol() async throws {
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: { _ in .accept(subprotocol: nil) }, session: { _ in }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url()))
            var requests = server.requests.makeAsyncIterator()
            let head = try #require(await requests.next())
            #expect(head.headers["Sec-WebSocket-Protocol"].isEmpty)
            #expect(connection.subprotocol == nil)
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("the server choosing none of the offered subprotocols fails the connect and closes the socket",
          arguments: [nil, "not-offered"] as [String?])
    func subprotocolNotNegotiated(chosen: String?) async throws {
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: { _ in .accept(subprotocol: chosen) }, session: { session in await session.waitForTCPClose() }
        )) { server in
            let request = WebSocketRequest(url: server.url(), subprotocols: ["aws-appsync-event-ws", "header-c2VjcmV0"])
            let error = await #expect(throws: WebSocketHandshakeError.self) {
                _ = try await makeConnector().connect(request)
            }
            #expect(error?.reason == .subprotocolNotNegotiated(offered: ["aws-appsync-event-ws", "header-<redacted>"], chosen: chosen), "credentials in a header- subprotocol are not kept")
            #expect(error.map { "\($0)" }?.contains("c2VjcmV0") == false, "the credential subprotocol is never printed")
            var closed = server.closedConnections.makeAsyncIterator()
            #expect(await closed.next() != nil, "the server saw the connection close")
        }
    }

    @Test("the request's headers, path, query and Host arrive")
    func headersArrive() async throws {
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: { _ in .accept(subprotocol: nil) }, session: { _ in }
        )) { server in
            let request = WebSocketRequest(
                url: URL(string: "ws://127.0.0.1:\(server.port)/event/realtime?region=eu-west-1")!,
                headers: [("x-api-key", "da2-secret"), ("Authorization", "Bearer token"), ("X-Multi", "one"), ("X-Multi", "two")])
            let connection = try await makeConnector().open(request)
            var requests = server.requests.makeAsyncIterator()
            let head = try #require(await requests.next())
            #expect(head.uri == "/event/realtime?region=eu-west-1")
            #expect(head.headers["Host"] == ["127.0.0.1:\(server.port)"])
            #expect(head.headers["x-api-key"] == ["da2-secret"])
            #expect(head.headers["authorization"] == ["Bearer token"])
            #expect(head.headers["X-Multi"] == ["one", "two"])
            #expect(head.headers["Sec-WebSocket-Version"] == ["13"])
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("a non-101 answer throws WebSocketHandshakeError with the status and the body", arguments: Scheme.allCases)
    func rejectedWithBody(scheme: Scheme) async throws {
        let body = #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
        try await TestWebSocketServer.with(tls: scheme.certificate(), mode: .webSocket(
            handshake: { _ in .reject(status: .unauthorized, body: body) }, session: { _ in }
        )) { server in
            let error = await #expect(throws: WebSocketHandshakeError.self) {
                _ = try await makeConnector().connect(WebSocketRequest(url: server.url(secure: scheme.isSecure), subprotocols: ["a"]))
            }
            #expect(error?.status == 401)
            #expect(error?.isAuthorizationFailure == true)
            #expect(error?.body == body)
        }
    }

    @Test("a long rejection body is cut to its first 4 KiB")
    func rejectedWithLongBody() async throws {
        let body = String(repeating: "forbidden ", count: 2000)
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: { _ in .reject(status: .forbidden, body: body) }, session: { _ in }
        )) { server in
            let error = await #expect(throws: WebSocketHandshakeError.self) {
                _ = try await makeConnector().connect(WebSocketRequest(url: server.url()))
            }
            #expect(error?.status == 403)
            #expect(error?.body == String(body.prefix(4096)))
        }
    }

    @Test("a refused connection throws SwitchboardError.network with the cause")
    func connectionRefused() async throws {
        // A port held bound but not listening. (A port bound and then freed could be taken by
        // another test's server before the connect: the test then met an HTTP 400 upgrade.)
        let error = try await withRefusingPort { port in
            await #expect(throws: SwitchboardError.self) {
                _ = try await makeConnector().connect(WebSocketRequest(url: URL(string: "ws://127.0.0.1:\(port)/")!))
            }
        }
        #expect(error?.code == .network)
        #expect(error?.cause != nil)
    }

    @Test("a server that never answers the upgrade times out on the injected clock and the socket is closed")
    func upgradeTimeout() async throws {
        let clock = ManualClock()
        try await TestWebSocketServer.with(mode: .silent) { server in
            let connector = try makeConnector(clock: clock)
            async let outcome: (any Error)? = {
                do {
                    _ = try await connector.connect(WebSocketRequest(url: server.url()))
                    return nil
                } catch {
                    return error
                }
            }()
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(9))
            #expect(clock.sleeperCount == 1, "9 of 10 seconds: still waiting")
            clock.advance(by: .seconds(1))
            let error = try #require(await outcome as? SwitchboardError)
            #expect(error.code == .network)
            #expect(error.message.hasPrefix("connect timeout: the WebSocket upgrade with "), "\(error.message)")
            #expect(error.message.hasSuffix(" took longer than 10 s"), "\(error.message)")
            var closed = server.closedConnections.makeAsyncIterator()
            #expect(await closed.next() != nil, "the timed-out socket was closed")
        }
    }

    @Test("a URL that is not ws or wss, or a header value with a line break, is invalid configuration")
    func invalidRequests() async throws {
        let connector = try makeConnector()
        let https = await #expect(throws: SwitchboardError.self) {
            _ = try await connector.connect(WebSocketRequest(url: URL(string: "https://example.com/")!))
        }
        #expect(https?.code == .invalidConfiguration)
        let header = await #expect(throws: SwitchboardError.self) {
            _ = try await connector.connect(WebSocketRequest(
                url: URL(string: "ws://127.0.0.1:1/")!, headers: [("x-api-key", "secret\r\nInjected: yes")]))
        }
        #expect(header?.code == .invalidConfiguration)
        #expect(header.map { "\($0)" }?.contains("secret") == false, "the value is never printed")
    }

    @Test("header values and header- subprotocols never reach a log line")
    func nothingSecretLogged() async throws {
        let lines = CapturingLogHandler.Lines()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        try await TestWebSocketServer.with(mode: .webSocket(
            handshake: { head in
                .accept(subprotocol: head.headers["Sec-WebSocket-Protocol"].first.map { String($0.split(separator: ",")[1].trimmingCharacters(in: .whitespaces)) })
            },
            session: { session in
                try await session.send(text: "event")
                _ = try await session.nextClose()
                try await session.sendClose(code: 1000)
            }
        )) { server in
            let connection = try await makeConnector(logger: logger).open(WebSocketRequest(
                url: server.url(), subprotocols: ["aws-appsync-event-ws", "header-U0VDUkVUX1NVQlBST1RPQ09M"],
                headers: [("x-api-key", "SECRET_HEADER_VALUE")]))
            #expect(connection.subprotocol == "header-U0VDUkVUX1NVQlBST1RPQ09M")
            var events = connection.inbound.makeAsyncIterator()
            _ = try await events.next()
            await connection.close(code: .normalClosure, reason: "")
        }
        #expect(lines.count > 3, "lifecycle and frames were logged")
        #expect(!lines.text.contains("SECRET_HEADER_VALUE"))
        #expect(!lines.text.contains("U0VDUkVUX1NVQlBST1RPQ09M"))
    }
}

@Suite("NIO WebSocket handshake failures", .timeLimit(.minutes(1)))
struct HandshakeFailureTests {
    @Test("a 101 with a wrong Sec-WebSocket-Accept is rejected as .network")
    func wrongAcceptKey() async throws {
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: d3Jvbmc=\r\n\r\n"
        try await TestWebSocketServer.with(mode: .raw(response: response)) { server in
            let error = await #expect(throws: SwitchboardError.self) {
                _ = try await makeConnector().connect(WebSocketRequest(url: server.url()))
            }
            #expect(error?.code == .network)
            #expect(error?.message.contains("invalid answer") == true)
        }
    }

    @Test("a server that hangs up before answering the upgrade is .network")
    func hangUp() async throws {
        try await TestWebSocketServer.with(mode: .raw(response: "")) { server in
            let error = await #expect(throws: SwitchboardError.self) {
                _ = try await makeConnector().connect(WebSocketRequest(url: server.url()))
            }
            #expect(error?.code == .network)
        }
    }

    @Test("a rejection without a body and without Content-Length (read until close) still reports the status")
    func rejectionUntilClose() async throws {
        let response = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\noverloaded, retry later"
        try await TestWebSocketServer.with(mode: .raw(response: response)) { server in
            let error = await #expect(throws: WebSocketHandshakeError.self) {
                _ = try await makeConnector().connect(WebSocketRequest(url: server.url()))
            }
            #expect(error?.status == 503)
            #expect(error?.body == "overloaded, retry later")
        }
    }

    @Test("cancelling a connect during the upgrade closes the socket and throws CancellationError")
    func cancelledDuringUpgrade() async throws {
        let clock = ManualClock()
        try await TestWebSocketServer.with(mode: .silent) { server in
            let connector = try makeConnector(clock: clock)
            let attempt = Task { try await connector.connect(WebSocketRequest(url: server.url())) }
            await clock.sleepers(atLeast: 1)
            attempt.cancel()
            await #expect(throws: CancellationError.self) { _ = try await attempt.value }
            var closed = server.closedConnections.makeAsyncIterator()
            #expect(await closed.next() != nil, "the socket was closed")
        }
    }
}
