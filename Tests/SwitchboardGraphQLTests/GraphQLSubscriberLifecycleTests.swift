import Foundation
@testable import SwitchboardGraphQL
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("GraphQLSubscriber lifecycle", .timeLimit(.minutes(1)))
struct GraphQLSubscriberLifecycleTests {
    /// Connects, acknowledges and returns the socket and the id of the one start.
    static func established(_ h: TransportHarness, ack: String = #"{"type":"connection_ack"}"#) async throws
        -> (ScriptedWebSocketConnection, String)
    {
        let socket = try #require(await h.connector.nextAttempt()?.connection)
        _ = await socket.nextSentText()
        socket.serverSends(text: ack)
        let start = try h.json(await socket.nextSentText())
        return (socket, try #require(start["id"]?.string))
    }

    @Test("graphql-ws: unsubscribe sends stop; disconnect sends connection_terminate, closes with 1000 and does not reconnect")
    func legacyStopAndTerminate() async throws {
        try await TransportHarness.run(.graphQLWS) { h in
            try h.transport.subscribe(TransportHarness.request)
            h.transport.connect(as: TransportHarness.identity)
            let (socket, id) = try await Self.established(h)
            h.transport.unsubscribe(TransportHarness.request.key)
            #expect(try h.json(await socket.nextSentText()) == .object(["id": .string(id), "type": .string("stop")]))
            h.transport.disconnect()
            #expect(try h.json(await socket.nextSentText()) == .object(["type": .string("connection_terminate")]))
            await h.log.wait { $0 == .connectionStateChanged(.idle) }
            #expect(socket.state.clientClose?.code == .normalClosure)
            #expect(h.clock.sleeperCount <= 1, "a reconnect was scheduled")
            #expect(h.connector.attempts.count == 1)
        }
    }

    @Test("graphql-transport-ws: 4409 is fatal and is not retried")
    func fatalClose() async throws {
        try await TransportHarness.run(.graphQLTransportWS) { h in
            try h.transport.subscribe(TransportHarness.request)
            h.transport.connect(as: TransportHarness.identity)
            let (socket, _) = try await Self.established(h)
            socket.serverCloses(code: WebSocketCloseCode(4409), reason: "Subscriber for 1 already exists")
            await h.log.wait { if case .connectionStateChanged(.disconnected(let e?)) = $0 { e.code == .protocolViolation } else { false } }
            #expect(h.connector.attempts.count == 1)
        }
    }

    @Test("connect(as:) with a new identity replaces the socket; the old one can no longer deliver")
    func replaceIdentity() async throws {
        try await TransportHarness.run(.graphQLTransportWS) { h in
            try h.transport.subscribe(TransportHarness.request)
            h.transport.connect(as: TransportHarness.identity)
            let (old, oldID) = try await Self.established(h)
            h.transport.connect(as: TransportIdentity(userId: "u2", orgId: "o2", tokens: .constant("tok-2")))
            let socket = try #require(await h.connector.nextAttempt()?.connection)
            #expect(old.state.isClosed)
            let initFrame = try h.json(await socket.nextSentText())
            #expect(initFrame["payload"]?["Authorization"] == .string("tok-2"))
            old.serverSends(text: #"{"type":"next","id":"\#(oldID)","payload":{"data":{"stale":true}}}"#)
            socket.serverSends(text: #"{"type":"connection_ack"}"#)
            let start = try h.json(await socket.nextSentText())
            let id = try #require(start["id"]?.string)
            #expect(id != oldID)
            socket.serverSends(text: #"{"type":"next","id":"\#(id)","payload":{"data":{"fresh":true}}}"#)
            await h.log.wait { if case .received = $0 { true } else { false } }
            let received = h.log.events.compactMap { event -> String? in
                if case .received(let envelope) = event { String(decoding: envelope.payload, as: UTF8.self) } else { nil }
            }
            #expect(received == [#"{"fresh":true}"#])
        }
    }

    @Test("graphql-transport-ws: a pong that never comes closes the socket on the manual clock and reconnects")
    func pongDeadline() async throws {
        try await TransportHarness.run(.graphQLTransportWS) { h in
            h.transport.connect(as: TransportHarness.identity)
            let socket = try #require(await h.connector.nextAttempt()?.connection)
            _ = await socket.nextSentText()
            socket.serverSends(text: #"{"type":"connection_ack"}"#)
            await h.log.wait { $0 == .connectionStateChanged(.connected) }
            await h.clock.sleepers(atLeast: 1)
            h.clock.advance(to: ManualClock.Instant(offset: .seconds(15)))
            #expect(try h.json(await socket.nextSentText()) == .object(["type": .string("ping")]))
            await h.clock.sleepers(atLeast: 1)
            h.clock.advance(to: ManualClock.Instant(offset: .seconds(25)))
            await h.log.wait { if case .error(let e) = $0 { e.code == .network && e.message.hasPrefix("keep-alive timeout: no pong within") } else { false } }
            #expect(socket.state.clientClose?.code == WebSocketCloseCode(4499))
        }
    }

    @Test("a socket that fails without a close frame is reported as a network error and retried")
    func socketFailure() async throws {
        try await TransportHarness.run(.appSyncGraphQL) { h in
            h.transport.connect(as: TransportHarness.identity)
            let socket = try #require(await h.connector.nextAttempt()?.connection)
            _ = await socket.nextSentText()
            socket.serverSends(text: #"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#)
            await h.log.wait { $0 == .connectionStateChanged(.connected) }
            socket.fail()
            await h.log.wait { $0 == .connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(1))) }
            #expect(h.log.events.contains { if case .error(let e) = $0 { e.code == .network } else { false } })
        }
    }

    @Test("a connector's connect timeout (older connectors throw timeout) is reported as network, named connect timeout, and retried")
    func connectTimeout() async throws {
        try await TransportHarness.run(.graphQLWS) { h in
            h.connector.failNextConnect(with: SwitchboardError(code: .timeout, message: "connecting to example.test:443 took longer than 10 s"))
            h.transport.connect(as: TransportHarness.identity)
            await h.log.wait { $0 == .connectionStateChanged(.waitingToReconnect(attempt: 2, delay: .seconds(1))) }
            let errors = h.log.events.compactMap { if case .error(let e) = $0 { e } else { nil } }
            #expect(errors == [SwitchboardError(code: .network, message: "connect timeout: connecting to example.test:443 took longer than 10 s")])
            #expect(errors.first?.code == .network)
        }
    }

    @Test("graphql-ws: no connection_ack in time is reported as network, named connection-ack timeout")
    func ackTimeoutReported() async throws {
        try await TransportHarness.run(.graphQLWS) { h in
            h.transport.connect(as: TransportHarness.identity)
            let socket = try #require(await h.connector.nextAttempt()?.connection)
            _ = await socket.nextSentText()
            await h.clock.sleepers(atLeast: 1)
            h.clock.advance(by: .seconds(10))
            await h.log.wait { $0 == .connectionStateChanged(.waitingToReconnect(attempt: 2, delay: .seconds(1))) }
            let errors = h.log.events.compactMap { if case .error(let e) = $0 { e } else { nil } }
            #expect(errors.map(\.code) == [.network])
            #expect(errors.first?.message == "connection-ack timeout: no connection_ack within 10 s")
        }
    }
}
