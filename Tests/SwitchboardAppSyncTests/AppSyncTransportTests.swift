import Foundation
import Logging
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A thread-safe box for test bookkeeping.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

@Suite("AppSync transport over scripted sockets", .timeLimit(.minutes(1)))
struct AppSyncTransportTests {
    @Test("authorizes in the header subprotocol and every subscribe, with fresh tokens; never logs them")
    func authorizationAndSecrets() async throws {
        let connector = ScriptedWebSocketConnector()
        let reasons = LockedBox<[TokenRequestReason]>([])
        let lines = LockedBox<[String]>([])
        let transport = AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: URL(string: "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!,
                authorization: .sessionToken, clock: ManualClock(),
                logger: Logger(label: "test", factory: { _ in LineCollector(lines) })),
            connector: connector)
        async let running: Void = transport.run()
        var events = transport.events.makeAsyncIterator()
        transport.connect(as: TransportIdentity(userId: "u1", orgId: "o1", tokens: TokenProvider { reason in
            reasons.mutate { $0.append(reason) }
            return "secret-token-\(reasons.value.count)"
        }))
        try transport.subscribe(SubscriptionRequest(key: "role", target: .channel("vortex-app/user/u1/roleChanged")))
        let attempt = try #require(await connector.nextAttempt())
        #expect(attempt.request.subprotocols.first == "aws-appsync-event-ws")
        let header = try #require(attempt.request.subprotocols.last)
        var base64 = String(header.dropFirst("header-".count)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let headers = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: base64))) as? [String: String]
        #expect(headers == ["host": "abc.appsync-api.eu-west-1.amazonaws.com", "Authorization": "secret-token-1"])

        let connection = try #require(attempt.connection)
        #expect(await connection.nextSentText() == #"{"type":"connection_init"}"#)
        connection.serverSends(text: #"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
        let subscribe = try #require(await connection.nextSentText())
        #expect(subscribe.contains(#""channel":"/vortex-app/user/u1/roleChanged""#))
        #expect(subscribe.contains(#""Authorization":"secret-token-2""#))
        #expect(reasons.value == [.connect, .subscribe])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(subscribe.utf8)) as? [String: Any])?["id"] as? String)
        connection.serverSends(text: #"{"type":"subscribe_success","id":"\#(id)"}"#)
        connection.serverSends(text: #"{"type":"data","id":"\#(id)","event":"{\"reason\":\"x\"}"}"#)

        var seen: [TransportEvent] = []
        while let event = await events.next() {
            seen.append(event)
            if case .received = event { break }
        }
        #expect(seen.contains(.connectionStateChanged(.connected)))
        #expect(seen.contains(.subscriptionEstablished("role")))
        guard case .received(let envelope)? = seen.last else { Issue.record("no event"); return }
        #expect(String(decoding: envelope.payload, as: UTF8.self) == #"{"reason":"x"}"#)
        #expect(envelope.subscription == "role" && envelope.transport == .appsync)

        transport.shutDown()
        try await running
        let logged = lines.value.joined(separator: "\n")
        #expect(!logged.isEmpty)
        #expect(!logged.contains("secret-token"), "no token in any log line")
        #expect(!logged.contains(header), "no header subprotocol in any log line")
    }

    @Test("subscribe validates the channel and the target kind; shutDown first lets run() return")
    func validation() async throws {
        let transport = AppSyncEventsSubscriber(
            configuration: .init(realtimeURL: URL(string: "ws://127.0.0.1:1/event/realtime")!, authorization: .apiKey("k")),
            connector: ScriptedWebSocketConnector())
        #expect(throws: SwitchboardError.self) { try transport.subscribe(SubscriptionRequest(key: "k", target: .channel("ns/bad_segment"))) }
        #expect(throws: SwitchboardError.self) {
            try transport.subscribe(SubscriptionRequest(key: "k", target: .graphQL(GraphQLOperation(query: "subscription { x }"))))
        }
        transport.shutDown()
        try await transport.run()
        #expect(throws: SwitchboardError.self) { try transport.subscribe(SubscriptionRequest(key: "k", target: .channel("ns/a"))) }
    }

    @Test("connection-level timeouts reach the owner as network errors naming the deadline: connect, connection-ack, keep-alive")
    func connectionTimeouts() async throws {
        let clock = ManualClock()
        let connector = ScriptedWebSocketConnector()
        let transport = AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: URL(string: "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!,
                authorization: .apiKey("k"), reconnectPolicy: .fixedDelay(.seconds(1)), clock: clock),
            connector: connector)
        async let running: Void = transport.run()
        var events = transport.events.makeAsyncIterator()
        /// The errors reported until the transport waits to reconnect.
        func errorsUntilWaiting() async -> [SwitchboardError] {
            var errors: [SwitchboardError] = []
            while let event = await events.next() {
                if case .error(let error) = event { errors.append(error) }
                if case .connectionStateChanged(.waitingToReconnect) = event { break }
            }
            return errors
        }

        // An older connector's connect timeout.
        connector.failNextConnect(with: SwitchboardError(code: .timeout, message: "connecting to abc:443 took longer than 10 s"))
        transport.connect(as: TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("t")))
        #expect(await errorsUntilWaiting() == [
            SwitchboardError(code: .network, message: "connect timeout: connecting to abc:443 took longer than 10 s")])
        #expect(await connector.nextAttempt()?.connection == nil, "the failed attempt")

        // The next socket opens but is never acknowledged.
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        let silent = try #require(await connector.nextAttempt()?.connection)
        #expect(await silent.nextSentText() == #"{"type":"connection_init"}"#)
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(10))
        #expect(await errorsUntilWaiting() == [
            SwitchboardError(code: .network, message: "connection-ack timeout: no connection_ack within 10 s")])

        // The third is acknowledged with a 300 s keep-alive window, then goes silent.
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        let stalled = try #require(await connector.nextAttempt()?.connection)
        #expect(await stalled.nextSentText() == #"{"type":"connection_init"}"#)
        stalled.serverSends(text: #"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
        while let event = await events.next(), event != .connectionStateChanged(.connected) {}
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(300))
        let keepAlive = await errorsUntilWaiting()
        #expect(keepAlive.map(\.code) == [.network])
        #expect(keepAlive.first?.message == "keep-alive timeout: no frame from the server within 300 s")

        transport.shutDown()
        try await running
    }
}

