import Foundation
import Logging
import SwitchboardCore
import SwitchboardTesting
import Testing
@testable import SwitchboardURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSessionWebSocketConnector's logic against a scripted task: the deadlines on a manual clock,
/// cancellation, the subprotocol check, and how the system's reports become the seam's errors.
@Suite("URLSessionWebSocketConnector through its task seam", .timeLimit(.minutes(1)))
struct URLSessionConnectorTests {
    let made = LockedValue<[ScriptedSessionTask]>([])
    let clock = ManualClock()
    let url = URL(string: "ws://127.0.0.1:9/graphql")!

    func connector(maximumMessageSize: Int = 4 << 20) -> URLSessionWebSocketConnector {
        URLSessionWebSocketConnector(
            configuration: .init(maximumMessageSize: maximumMessageSize, connectTimeout: .seconds(20), closeTimeout: .seconds(5), clock: clock),
            makeTask: ScriptedSessionTask.factory(made))
    }

    func task() async -> ScriptedSessionTask {
        await eventually { made.withLock { !$0.isEmpty } }
        return made.withLock { $0[0] }
    }

    /// Starts opening a connection without an offer; returns the opening and its task.
    func startOpening() async -> (Task<URLSessionWebSocketConnection, any Error>, ScriptedSessionTask) {
        let connector = connector()
        let url = url
        let opening = Task { try await connector.open(WebSocketRequest(url: url)) }
        return (opening, await task())
    }

    /// Opens a connection whose server chose `chosen` out of `offered`.
    func open(offered: [String] = ["graphql-transport-ws"], chosen: String? = "graphql-transport-ws") async throws
        -> (URLSessionWebSocketConnection, ScriptedSessionTask)
    {
        let connector = connector()
        let url = url
        async let connection = connector.open(WebSocketRequest(url: url, subprotocols: offered))
        let task = await task()
        task.events.didOpen(subprotocol: chosen)
        return (try await connection, task)
    }

    @Test("the offer goes out in one Sec-WebSocket-Protocol header, with the headers and the message size limit")
    func request() async throws {
        let connector = connector(maximumMessageSize: 300_000)
        let url = url
        async let opened = connector.open(WebSocketRequest(
            url: url, subprotocols: ["aws-appsync-event-ws", "header-abc"],
            headers: [("x-api-key", "k"), ("Sec-WebSocket-Key", "forged")]))
        let task = await task()
        #expect(task.request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == "aws-appsync-event-ws, header-abc")
        #expect(task.request.value(forHTTPHeaderField: "x-api-key") == "k")
        #expect(task.request.value(forHTTPHeaderField: "Sec-WebSocket-Key") == nil)
        #expect(task.maximumMessageSize == 300_000)
        #expect(task.record.withLock { $0.resumed })
        task.events.didOpen(subprotocol: "aws-appsync-event-ws")
        #expect(try await opened.subprotocol == "aws-appsync-event-ws")
    }

    @Test("a subprotocol the client did not offer fails the handshake and closes with 1002")
    func subprotocolNotOffered() async throws {
        await #expect {
            _ = try await open(offered: ["graphql-transport-ws"], chosen: "graphql-ws")
        } throws: { error in
            guard case .subprotocolNotNegotiated(_, let chosen)? = (error as? WebSocketHandshakeError)?.reason else { return false }
            return chosen == "graphql-ws"
        }
        #expect(made.withLock { $0[0].record.withLock { $0.cancelledWith?.code } } == .protocolError)
    }

    @Test("no subprotocol chosen out of an offer fails the handshake")
    func subprotocolMissing() async throws {
        await #expect(throws: WebSocketHandshakeError.self) {
            _ = try await open(offered: ["aws-appsync-event-ws"], chosen: nil)
        }
    }

    @Test("an upgrade that never answers fails with a connect timeout on the injected clock, and the task is cancelled")
    func connectTimeout() async throws {
        let (opened, task) = await startOpening()
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(20))
        await #expect {
            _ = try await opened.value
        } throws: { error in
            let error = error as? SwitchboardError
            return error?.code == .network && error?.message.hasPrefix("connect timeout:") == true
        }
        #expect(task.record.withLock { $0.aborted })
    }

    @Test("cancelling the connecting task throws CancellationError and cancels the URLSession task")
    func cancellation() async throws {
        let (connecting, task) = await startOpening()
        await clock.sleepers(atLeast: 1)
        connecting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await connecting.value }
        #expect(task.record.withLock { $0.aborted })
    }

    @Test("a refused upgrade is a WebSocketHandshakeError with the status; 401 and 403 are authorization failures")
    func refusedUpgrade() async throws {
        let (opened, task) = await startOpening()
        task.record.withLock { $0.status = 401 }
        task.events.didComplete(error: URLError(.badServerResponse))
        await #expect {
            _ = try await opened.value
        } throws: { error in
            (error as? WebSocketHandshakeError)?.status == 401 && (error as? WebSocketHandshakeError)?.isAuthorizationFailure == true
        }
    }

    @Test("the system's reports name their cause", arguments: [
        (URLError.Code.notConnectedToInternet, "no network"),
        (.cannotConnectToHost, "cannot connect to the host"),
        (.cannotFindHost, "cannot be resolved"),
        (.serverCertificateUntrusted, "certificate is not trusted"),
        (.serverCertificateHasUnknownRoot, "certificate is not trusted"),
        (.networkConnectionLost, "connection was lost"),
        (.timedOut, "connect timeout:"),
    ])
    func reasons(_ code: URLError.Code, _ words: String) throws {
        let error = try #require(URLSessionFailure.opening(URLError(code), status: nil, endpoint: "h:1") as? SwitchboardError)
        #expect(error.code == .network)
        #expect(error.message.contains(words))
        #expect(error.isPermanent == URLSessionFailure.isCertificateFailure(code))
    }

    @Test("libcurl's missing WebSocket support is a permanent invalidConfiguration naming the limit")
    func libcurlLimit() throws {
        let report = URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: "WebSockets not supported by libcurl"])
        let error = try #require(URLSessionFailure.opening(report, status: nil, endpoint: "h:1") as? SwitchboardError)
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("WebSockets not supported by libcurl"))
        #expect(error.isPermanent)
    }

    @Test("a URL that is not ws or wss, and plaintext to a remote host, are refused before a task is made", arguments: [
        "https://example.com/x", "ws://example.com/x",
    ])
    func refusedURLs(_ text: String) async throws {
        await #expect {
            _ = try await connector().open(WebSocketRequest(url: URL(string: text)!))
        } throws: { ($0 as? SwitchboardError)?.code == .invalidConfiguration }
        #expect(made.withLock { $0.isEmpty })
    }

    @Test("a refused request is logged at debug with the error's message, never the headers")
    func refusalLogged() async throws {
        let lines = LockedValue<[String]>([])
        var logger = Logger(label: "urlsession.test", factory: { _ in LineCollector(lines: lines) })
        logger.logLevel = .debug
        let connector = URLSessionWebSocketConnector(
            configuration: .init(clock: clock, logger: logger), makeTask: ScriptedSessionTask.factory(made))
        await #expect(throws: SwitchboardError.self) {
            _ = try await connector.open(WebSocketRequest(url: url, headers: [("x-api-key", "secret\r\nvalue")]))
        }
        let logged = lines.withLock { $0 }
        #expect(logged.contains { $0.hasPrefix("request refused") && $0.contains("x-api-key") })
        #expect(!logged.contains { $0.contains("secret") })
    }

    @Test("the peer's close frame ends inbound with its code and reason")
    func peerClose() async throws {
        let (connection, task) = try await open()
        var events = connection.inbound.makeAsyncIterator()
        await eventually { task.pendingReceives == 1 }
        task.answerReceive(.success(.text("hello")))
        #expect(try await events.next() == .message(.text("hello")))
        await eventually { task.pendingReceives == 1 }
        task.record.withLock { $0.close = WebSocketClose(code: WebSocketCloseCode(4403), reason: "forbidden") }
        task.answerReceive(.failure(POSIXError(.ENOTCONN)))
        #expect(try await events.next() == .closed(WebSocketClose(code: WebSocketCloseCode(4403), reason: "forbidden")))
        #expect(try await events.next() == nil)
    }

    @Test("a socket that fails without a close frame ends inbound with a network error; an oversized message with protocolViolation")
    func failures() async throws {
        for (failure, code) in [(URLError(.networkConnectionLost) as any Error, SwitchboardError.Code.network),
                                (POSIXError(.EMSGSIZE), .protocolViolation)] {
            made.withLock { $0 = [] }
            let (connection, task) = try await open()
            var events = connection.inbound.makeAsyncIterator()
            await eventually { task.pendingReceives == 1 }
            task.answerReceive(.failure(failure))
            await #expect { _ = try await events.next() } throws: { ($0 as? SwitchboardError)?.code == code }
        }
    }

    @Test("close sends the code and reason, waits for the task's end on the clock, and happens once")
    func close() async throws {
        let (connection, task) = try await open()
        let closing = Task { await connection.close(code: WebSocketCloseCode(4000), reason: "bye") }
        await clock.sleepers(atLeast: 1)
        #expect(task.record.withLock { $0.cancelledWith } == WebSocketClose(code: WebSocketCloseCode(4000), reason: "bye"))
        #expect(!task.record.withLock { $0.aborted })
        clock.advance(by: .seconds(5))
        await closing.value
        #expect(task.record.withLock { $0.aborted })
        await connection.close(code: .normalClosure, reason: "again")
        #expect(task.record.withLock { $0.cancelledWith?.reason } == "bye")
    }

    @Test("a ping returns the round trip on the clock; a cancelled wait throws CancellationError")
    func ping() async throws {
        let (connection, task) = try await open()
        let first = Task { try await connection.sendPing(Data()) }
        await eventually { task.pendingPings == 1 }
        clock.advance(by: .milliseconds(40))
        task.record.withLock { $0.pings[0] }(nil)
        #expect(try await first.value == .milliseconds(40))

        let second = Task { try await connection.sendPing(Data()) }
        await eventually { task.pendingPings == 2 }
        second.cancel()
        await #expect(throws: CancellationError.self) { _ = try await second.value }
        task.record.withLock { $0.pings[1] }(nil)  // a late pong is ignored

        await #expect { _ = try await connection.sendPing(Data(count: 126)) } throws: {
            ($0 as? SwitchboardError)?.code == .invalidConfiguration
        }
    }
}

/// Keeps each log line as its message followed by its metadata values.
struct LineCollector: LogHandler {
    let lines: LockedValue<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let values = (event.metadata ?? [:]).merging(metadata) { line, _ in line }.values.map { "\($0)" }
        lines.withLock { $0.append(([event.message.description] + values).joined(separator: " ")) }
    }
}
