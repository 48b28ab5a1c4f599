import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("Scripted WebSocket connection", .timeLimit(.minutes(1)))
struct ScriptedWebSocketConnectionTests {
    @Test("client frames are recorded in order and handed out one by one")
    func clientFrames() async throws {
        let connection = ScriptedWebSocketConnection(subprotocol: "aws-appsync-event-ws")
        try await connection.send(.text(#"{"type":"connection_init"}"#))
        try await connection.send(.binary(Data([1, 2])))
        #expect(await connection.nextSentText() == #"{"type":"connection_init"}"#)
        #expect(await connection.nextSent() == .binary(Data([1, 2])))
        #expect(connection.subprotocol == "aws-appsync-event-ws")
        await connection.close(code: .normalClosure, reason: "bye")
        #expect(await connection.nextSent() == nil, "a closed connection ends the wait")
        #expect(connection.state.clientClose == WebSocketClose(code: .normalClosure, reason: "bye"))
        await #expect(throws: SwitchboardError.self) { try await connection.send(.text("late")) }
    }

    @Test("server frames arrive in order, then the close")
    func serverFrames() async throws {
        let connection = ScriptedWebSocketConnection()
        connection.serverSends(text: "one")
        connection.serverSends(text: "two")
        connection.serverCloses(code: WebSocketCloseCode(4403), reason: "forbidden")
        connection.serverSends(text: "after close is dropped")
        var received: [WebSocketInboundEvent] = []
        for try await event in connection.inbound { received.append(event) }
        #expect(received == [
            .message(.text("one")), .message(.text("two")),
            .closed(WebSocketClose(code: WebSocketCloseCode(4403), reason: "forbidden")),
        ])
    }

    @Test("a failed socket ends the inbound sequence with the error")
    func failure() async throws {
        let connection = ScriptedWebSocketConnection()
        connection.serverSends(text: "one")
        connection.fail()
        var iterator = connection.inbound.makeAsyncIterator()
        #expect(try await iterator.next() == .message(.text("one")))
        await #expect(throws: SwitchboardError.self) { _ = try await iterator.next() }
    }

    @Test("the connector hands out connections and queued failures in order")
    func connector() async throws {
        let connector = ScriptedWebSocketConnector { $0.last }
        connector.failNextConnect(with: SwitchboardError(code: .sessionExpired, message: "401"))
        let request = WebSocketRequest(url: URL(string: "wss://example.com/event/realtime")!, subprotocols: ["a", "b"])
        await #expect(throws: SwitchboardError.self) { _ = try await connector.connect(request) }
        let connection = try await connector.connect(request)
        #expect(connection.subprotocol == "b")
        let first = try #require(await connector.nextAttempt())
        #expect(first.connection == nil)
        let second = try #require(await connector.nextAttempt())
        #expect(second.connection === connection as? ScriptedWebSocketConnection)
        #expect(second.request.url.host == "example.com")
    }
}

@Suite("Scripted transport", .timeLimit(.minutes(1)))
struct ScriptedTransportTests {
    @Test("automatic mode connects, acknowledges held subscriptions and re-acknowledges after a drop")
    func automatic() async throws {
        let transport = ScriptedTransport(kind: .appsync)
        var events = transport.events.makeAsyncIterator()
        let request = SubscriptionRequest(key: "k", target: .channel("ns/a/b"))
        try transport.subscribe(request)
        transport.connect(as: TransportIdentity(userId: "u", orgId: "o", tokens: .constant("t")))
        #expect(await events.next() == .connectionStateChanged(.connecting(attempt: 1)))
        #expect(await events.next() == .connectionStateChanged(.connected))
        #expect(await events.next() == .subscriptionEstablished("k"))
        transport.dropConnection()
        #expect(await events.next() == .error(SwitchboardError(code: .network, message: "connection dropped")))
        #expect(await events.next() == .connectionStateChanged(.connecting(attempt: 1)))
        #expect(await events.next() == .connectionStateChanged(.connected))
        #expect(await events.next() == .subscriptionEstablished("k"))
        #expect(transport.state.connectionCount == 2)
        #expect(transport.state.commands == [.subscribe(request), .connect(userId: "u", orgId: "o")])
    }

    @Test("subscribe validates the target like a real transport")
    func validation() {
        let appSync = ScriptedTransport(kind: .appsync)
        #expect(throws: SwitchboardError.self) {
            try appSync.subscribe(SubscriptionRequest(key: "k", target: .channel("ns/bad_segment")))
        }
        #expect(throws: SwitchboardError.self) {
            try appSync.subscribe(SubscriptionRequest(key: "k", target: .graphQL(GraphQLOperation(query: "subscription { x }"))))
        }
        let graphQL = ScriptedTransport(kind: .graphql)
        #expect(throws: SwitchboardError.self) {
            try graphQL.subscribe(SubscriptionRequest(key: "k", target: .channel("ns/a")))
        }
        graphQL.shutDown()
        #expect(throws: SwitchboardError.self) {
            try graphQL.subscribe(SubscriptionRequest(key: "k", target: .graphQL(GraphQLOperation(query: "subscription { x }"))))
        }
    }

    @Test("run() returns on shutDown, throws while already running, and returns at once after shutDown")
    func runAndShutDown() async throws {
        let transport = ScriptedTransport(kind: .graphql)
        async let running: Void = transport.run()
        await transport.waitUntil { $0.isRunning }
        await #expect(throws: SwitchboardError.self) { try await transport.run() }
        transport.shutDown()
        try await running
        try await transport.run()
        var events = transport.events.makeAsyncIterator()
        #expect(await events.next() == .connectionStateChanged(.shutDown))
        #expect(await events.next() == nil)
    }

    @Test("shutDown before run() lets run() return instead of throwing")
    func shutDownBeforeRun() async throws {
        let transport = ScriptedTransport(kind: .appsync)
        transport.shutDown()
        try await transport.run()
        #expect(!transport.state.isRunning)
    }

    @Test("an emitted event is in the sequence before waiters on the state wake up", arguments: 0..<20)
    func emitOrdersEventBeforeWaiters(round: Int) async throws {
        let transport = ScriptedTransport(kind: .appsync, behavior: .manual)
        let key = SubscriptionKey("k\(round)")
        try transport.subscribe(SubscriptionRequest(key: key, target: .channel("ns/a/b")))
        // The waiter ends the sequence as soon as it sees the acknowledgement in the state;
        // the acknowledgement must already be in the sequence by then. A stress test: the
        // window it guards is narrow, so a regression shows up only in some rounds.
        async let waiter: Void = {
            await transport.waitUntil { $0.established.contains(key) }
            transport.shutDown()
        }()
        transport.acknowledge(key)
        await waiter
        var seen: [TransportEvent] = []
        for await event in transport.events { seen.append(event) }
        #expect(seen == [.subscriptionEstablished(key), .connectionStateChanged(.shutDown)])
    }
}
