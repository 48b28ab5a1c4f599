import Foundation
@testable import SwitchboardGraphQL
import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

/// Collects a transport's events for assertions.
final class EventLog: Sendable {
    private let observed = Observed([TransportEvent]())
    var events: [TransportEvent] { observed.value }
    func append(_ event: TransportEvent) { observed.update { $0.append(event) } }
    func wait(for predicate: @escaping @Sendable (TransportEvent) -> Bool) async {
        await observed.wait { $0.contains(where: predicate) }
    }
}

struct TransportHarness {
    let transport: GraphQLSubscriber
    let connector: ScriptedWebSocketConnector
    let clock: ManualClock
    let log: EventLog

    static func run(
        _ dialect: GraphQLProtocol, policy: ReconnectPolicy = .fixedDelay(.seconds(1)),
        _ body: (TransportHarness) async throws -> Void
    ) async throws {
        let clock = ManualClock()
        let connector = ScriptedWebSocketConnector()
        let configuration = GraphQLSubscriber.Configuration(
            url: URL(string: "wss://example.test/graphql")!, wireProtocol: dialect, reconnectPolicy: policy,
            appSyncHost: "api.example.test", clock: clock, random: SeededRandomNumberGenerator(seed: 7))
        let transport = GraphQLSubscriber(configuration: configuration, connector: connector)
        let log = EventLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transport.run() }
            group.addTask { for await event in transport.events { log.append(event) } }
            try await body(TransportHarness(transport: transport, connector: connector, clock: clock, log: log))
            transport.shutDown()
            try await group.waitForAll()
        }
    }

    static let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("tok-1"))
    static let request = SubscriptionRequest(
        key: "graphql/subscribeDeviceState",
        target: .graphQL(GraphQLOperation(query: "subscription { subscribeDeviceState(userId: \"u1\") { online } }")))

    func json(_ text: String?) throws -> JSONValue { try JSONValue.parse(try #require(text)) }
}

@Suite("GraphQLSubscriber over scripted sockets", .timeLimit(.minutes(1)))
struct GraphQLSubscriberTests {
    @Test("says whether its subscriptions are acknowledged: only the AppSync dialect acknowledges each start",
          arguments: [(GraphQLProtocol.graphQLWS, false), (.graphQLTransportWS, false), (.appSyncGraphQL, true)])
    func acknowledgement(dialect: GraphQLProtocol, acknowledges: Bool) {
        let configuration = GraphQLSubscriber.Configuration(
            url: URL(string: "wss://example.test/graphql")!, wireProtocol: dialect, appSyncHost: "api.example.test")
        let transport = GraphQLSubscriber(configuration: configuration, connector: ScriptedWebSocketConnector())
        #expect(transport.acknowledgesSubscriptions == acknowledges)
    }

    @Test("graphql-ws: init carries the token, start waits for the ack, data is delivered, established on send")
    func legacyHappyPath() async throws {
        try await TransportHarness.run(.graphQLWS) { h in
            try h.transport.subscribe(TransportHarness.request)
            h.transport.connect(as: TransportHarness.identity)
            let attempt = try #require(await h.connector.nextAttempt())
            #expect(attempt.request.subprotocols == ["graphql-ws"])
            let socket = try #require(attempt.connection)
            let initFrame = try h.json(await socket.nextSentText())
            #expect(initFrame["type"] == .string("connection_init"))
            #expect(initFrame["payload"]?["Authorization"] == .string("tok-1"))
            #expect(socket.state.sent.count == 1, "start sent before the ack")
            socket.serverSends(text: #"{"type":"connection_ack"}"#)
            let start = try h.json(await socket.nextSentText())
            #expect(start["type"] == .string("start"))
            let id = try #require(start["id"]?.string)
            await h.log.wait { $0 == .subscriptionEstablished("graphql/subscribeDeviceState") }
            socket.serverSends(text: #"{"type":"data","id":"\#(id)","payload":{"data":{"subscribeDeviceState":{"online":true}}}}"#)
            await h.log.wait { if case .received = $0 { true } else { false } }
            guard case .received(let envelope)? = h.log.events.last(where: { if case .received = $0 { true } else { false } }) else { return }
            // Unwrapped from under the root field, named by the change it carries.
            #expect(String(decoding: envelope.payload, as: UTF8.self) == #"{"online":true}"#)
            #expect(envelope.eventTypes == ["device/presenceChanged"])
            #expect(envelope.transport == .graphql)
        }
    }

    @Test("an auth rejection refreshes the token once, then fails with sessionExpired instead of looping")
    func authRefreshOnce() async throws {
        try await TransportHarness.run(.graphQLWS) { h in
            let reasons = Observed([TokenRequestReason]())
            let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: TokenProvider { reason in
                reasons.update { $0.append(reason) }
                return "tok"
            })
            h.transport.connect(as: identity)
            for _ in 0..<2 {
                let socket = try #require(await h.connector.nextAttempt()?.connection)
                _ = await socket.nextSentText()
                socket.serverSends(text: #"{"type":"connection_error","payload":{"message":"unauthorized"}}"#)
            }
            await h.log.wait { if case .connectionStateChanged(.disconnected(let e?)) = $0 { e.code == .sessionExpired } else { false } }
            #expect(reasons.value == [.connect, .refreshAfterRejection])
            #expect(h.connector.attempts.count == 2)
        }
    }

    @Test("a 401 handshake counts as an auth failure too")
    func handshake401() async throws {
        try await TransportHarness.run(.graphQLTransportWS) { h in
            h.connector.failNextConnect(with: SwitchboardError(code: .sessionExpired, message: "HTTP 401"))
            h.connector.failNextConnect(with: SwitchboardError(code: .sessionExpired, message: "HTTP 401"))
            h.transport.connect(as: TransportHarness.identity)
            await h.log.wait { if case .connectionStateChanged(.disconnected(let e?)) = $0 { e.code == .sessionExpired } else { false } }
            #expect(h.connector.attempts.count == 2)
        }
    }

    @Test("ack timeout on the manual clock leads to a reconnect with fresh ids")
    func ackTimeoutAndResubscribe() async throws {
        try await TransportHarness.run(.graphQLWS) { h in
            try h.transport.subscribe(TransportHarness.request)
            h.transport.connect(as: TransportHarness.identity)
            let first = try #require(await h.connector.nextAttempt()?.connection)
            _ = await first.nextSentText()
            await h.clock.sleepers(atLeast: 1)
            h.clock.advance(by: .seconds(10))
            await h.log.wait { $0 == .connectionStateChanged(.waitingToReconnect(attempt: 2, delay: .seconds(1))) }
            #expect(first.state.isClosed)
            await h.clock.sleepers(atLeast: 1)
            h.clock.advance(by: .seconds(1))
            let second = try #require(await h.connector.nextAttempt()?.connection)
            _ = await second.nextSentText()
            second.serverSends(text: #"{"type":"connection_ack"}"#)
            let start = try h.json(await second.nextSentText())
            #expect(start["id"] == .string("1"))
            // Drop it: the resubscription gets a fresh id.
            second.serverCloses(code: .abnormalClosure)
            await h.log.wait { $0 == .connectionStateChanged(.waitingToReconnect(attempt: 1, delay: .seconds(1))) }
            h.clock.advance(by: .seconds(1))
            let third = try #require(await h.connector.nextAttempt()?.connection)
            _ = await third.nextSentText()
            third.serverSends(text: #"{"type":"connection_ack"}"#)
            let again = try h.json(await third.nextSentText())
            #expect(again["id"] == .string("2"))
        }
    }

    @Test("AppSync: auth in the URL, start carries authorization, established on start_ack, error stays local")
    func appSync() async throws {
        try await TransportHarness.run(.appSyncGraphQL) { h in
            try h.transport.subscribe(TransportHarness.request)
            h.transport.connect(as: TransportHarness.identity)
            let attempt = try #require(await h.connector.nextAttempt())
            let query = try #require(attempt.request.url.query)
            #expect(query.contains("header=") && query.contains("payload=e30"))
            let socket = try #require(attempt.connection)
            #expect(try h.json(await socket.nextSentText()) == .object(["type": .string("connection_init")]))
            socket.serverSends(text: #"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#)
            let start = try h.json(await socket.nextSentText())
            #expect(start["payload"]?["extensions"]?["authorization"]?["host"] == .string("api.example.test"))
            let id = try #require(start["id"]?.string)
            #expect(id.count == 36)
            #expect(!h.log.events.contains(.subscriptionEstablished("graphql/subscribeDeviceState")))
            socket.serverSends(text: #"{"type":"start_ack","id":"\#(id)"}"#)
            await h.log.wait { $0 == .subscriptionEstablished("graphql/subscribeDeviceState") }
            socket.serverSends(text: #"{"type":"error","id":"\#(id)","payload":{"errors":[{"errorType":"MaxSubscriptionsReachedError","message":"too many"}]}}"#)
            await h.log.wait { if case .subscriptionFailed = $0 { true } else { false } }
            #expect(h.log.events.contains(.connectionStateChanged(.connected)))
            #expect(!socket.state.isClosed)
        }
    }

    @Test("subscribe rejects a channel target; run returns at once after an early shutDown")
    func contract() async throws {
        let transport = GraphQLSubscriber(
            configuration: .init(url: URL(string: "ws://127.0.0.1:1/graphql")!), connector: ScriptedWebSocketConnector())
        #expect(throws: SwitchboardError.self) { try transport.subscribe(SubscriptionRequest(key: "k", target: .channel("a/b"))) }
        transport.shutDown()
        try await transport.run()
        #expect(throws: SwitchboardError.self) { try transport.subscribe(TransportHarness.request) }
    }
}
