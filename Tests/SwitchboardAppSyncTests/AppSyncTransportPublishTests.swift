import Foundation
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A transport over scripted sockets on a manual clock. Run it, then ``open()``.
private struct Scripted {
    let transport: AppSyncEventsSubscriber
    let connector: ScriptedWebSocketConnector
    let clock: ManualClock
    let keys: [SubscriptionKey]

    init(authorization: AppSyncAuthorization = .apiKey("da2-key"), connectionLifetime: Duration? = nil, subscribe keys: [SubscriptionKey] = []) {
        connector = ScriptedWebSocketConnector()
        clock = ManualClock()
        self.keys = keys
        transport = AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: URL(string: "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!,
                authorization: authorization, connectionLifetime: connectionLifetime, publishTimeout: .seconds(10), clock: clock),
            connector: connector)
    }

    /// Connects, subscribes `keys`, and completes the handshake.
    func open() async throws -> ScriptedWebSocketConnection {
        transport.connect(as: TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("jwt")))
        for key in keys { try transport.subscribe(SubscriptionRequest(key: key, target: .channel("ns/\(key)"))) }
        return try await Self.handshake(connector)
    }

    /// Answers the next connection attempt's `connection_init`.
    static func handshake(_ connector: ScriptedWebSocketConnector) async throws -> ScriptedWebSocketConnection {
        let connection = try #require(await connector.nextAttempt()?.connection)
        #expect(await connection.nextSentText() == #"{"type":"connection_init"}"#)
        connection.serverSends(text: #"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
        return connection
    }
}

/// The next frame `connection` sent, as a JSON object.
private func nextFrame(_ connection: ScriptedWebSocketConnection) async throws -> [String: Any] {
    let text = try #require(await connection.nextSentText())
    return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Suite("AppSync publish over the socket", .timeLimit(.minutes(1)))
struct AppSyncTransportPublishTests {
    @Test("sends the events as strings with their own authorization and returns each event's outcome")
    func publishes() async throws {
        let c = Scripted()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await c.transport.run() }
            let connection = try await c.open()
            async let result = c.transport.publish([#"{"a":"x/y"}"#, "42"], to: "ns/room")
            let frame = try await nextFrame(connection)
            #expect(frame["type"] as? String == "publish")
            #expect(frame["channel"] as? String == "/ns/room")
            #expect(frame["events"] as? [String] == [#"{"a":"x/y"}"#, "42"])
            #expect(frame["authorization"] as? [String: String] == ["host": "abc.appsync-api.eu-west-1.amazonaws.com", "x-api-key": "da2-key"])
            let id = try #require(frame["id"] as? String)
            #expect(id.range(of: "^[A-Za-z0-9_+-]{1,128}$", options: .regularExpression) != nil, "a valid operation id: \(id)")
            connection.serverSends(text: """
                {"type":"publish_success","id":"\(id)","successful":[{"identifier":"e-1","index":0}],\
                "failed":[{"identifier":"e-2","index":1,"code":400,"message":"rejected by handler"}]}
                """)
            #expect(try await result == AppSyncPublishResult(
                accepted: [.init(identifier: "e-1", index: 0)],
                refused: [.init(identifier: "e-2", index: 1, code: "400", message: "rejected by handler")]))
            c.transport.shutDown()
        }
    }

    @Test("invalid input is refused before anything is sent", arguments: [
        (["{}"], "ns/*", SwitchboardError.Code.invalidChannel),
        (["{}"], "ns/bad_segment", .invalidChannel),
        ([], "ns/a", .publishRejected),
        (Array(repeating: "{}", count: 6), "ns/a", .publishRejected),
        (["not json"], "ns/a", .publishRejected),
        (["\"" + String(repeating: "x", count: 240 * 1024) + "\""], "ns/a", .publishRejected),
    ])
    func validation(events: [String], channel: String, code: SwitchboardError.Code) async throws {
        let transport = AppSyncEventsSubscriber(
            configuration: .init(realtimeURL: URL(string: "ws://127.0.0.1:1/event/realtime")!, authorization: .apiKey("k")),
            connector: ScriptedWebSocketConnector())
        await #expect { try await transport.publish(events, to: channel) } throws: { ($0 as? SwitchboardError)?.code == code }
    }

    @Test("a publish_error fails that publish only; an unanswered one times out on the clock")
    func failures() async throws {
        let c = Scripted()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await c.transport.run() }
            let connection = try await c.open()
            let refused = Task { try await c.transport.publish(["{}"], to: "ns/a") }
            let id = try #require(try await nextFrame(connection)["id"] as? String)
            connection.serverSends(text: #"{"type":"publish_error","id":"\#(id)","errors":[{"errorType":"BadRequestException","message":"no"}]}"#)
            await #expect { try await refused.value } throws: { ($0 as? SwitchboardError)?.code == .publishRejected }

            let unanswered = Task { try await c.transport.publish(["{}"], to: "ns/a") }
            _ = try await nextFrame(connection)
            await c.clock.sleepers(atLeast: 1)
            c.clock.advance(by: .seconds(10))
            await #expect { try await unanswered.value } throws: { ($0 as? SwitchboardError)?.code == .timeout }
            c.transport.shutDown()
        }
    }

    @Test("a publish from an already-cancelled task throws CancellationError")
    func cancelledBeforehand() async throws {
        let c = Scripted()
        let publishing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await c.transport.publish(["{}"], to: "ns/a")
        }
        await #expect(throws: CancellationError.self) { try await publishing.value }
    }

    @Test("a token provider that never answers a subscribe does not hold up a publish")
    func slowTokenDoesNotBlock() async throws {
        let (never, _) = AsyncStream<Void>.makeStream()
        let c = Scripted(authorization: .token(TokenProvider { reason in
            if reason == .subscribe { for await _ in never {} }  // never answers (until cancelled)
            return "token"
        }), subscribe: ["a"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await c.transport.run() }
            let connection = try await c.open()
            let publishing = Task { try await c.transport.publish(["{}"], to: "ns/a") }
            let frame = try await nextFrame(connection)
            #expect(frame["type"] as? String == "publish", "the publish went out while the subscribe waits for its token")
            let id = try #require(frame["id"] as? String)
            connection.serverSends(text: #"{"type":"publish_success","id":"\#(id)","successful":[{"identifier":"e","index":0}],"failed":[]}"#)
            #expect(try await publishing.value.allAccepted)
            c.transport.shutDown()
        }
    }

    @Test("IAM signs each publish over exactly the events sent, with fresh credentials")
    func iamPublish() async throws {
        let fetches = LockedBox(0)
        let c = Scripted(authorization: .iam(region: "eu-west-1") {
            fetches.mutate { $0 += 1 }
            return AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret", sessionToken: "session-\(fetches.value)")
        })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await c.transport.run() }
            let connection = try await c.open()
            async let result = c.transport.publish([#"{"text":"<b>Grüße</b> & 🚀"}"#], to: "ns/a")
            let frame = try await nextFrame(connection)
            let authorization = try #require(frame["authorization"] as? [String: String])
            #expect(authorization["host"] == "abc.appsync-api.eu-west-1.amazonaws.com")
            #expect(authorization["X-Amz-Security-Token"] == "session-2", "credentials fetched again for the publish")
            #expect(authorization["Authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") == true)
            #expect(authorization["Authorization"]?.contains("/eu-west-1/appsync/aws4_request") == true)
            let id = try #require(frame["id"] as? String)
            connection.serverSends(text: #"{"type":"publish_success","id":"\#(id)","successful":[{"identifier":"e","index":0}],"failed":[]}"#)
            #expect(try await result.allAccepted)
            c.transport.shutDown()
        }
    }
}

@Suite("AppSync connection replacement over scripted sockets", .timeLimit(.minutes(1)))
struct AppSyncTransportReplacementTests {
    @Test("after the lifetime a new socket is subscribed before the old one closes; nothing is delivered twice")
    func replacesMakeBeforeBreak() async throws {
        let c = Scripted(connectionLifetime: .seconds(60), subscribe: ["role"])  // shorter than the 300 s keep-alive timeout
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await c.transport.run() }
            let connection = try await c.open()
            var events = c.transport.events.makeAsyncIterator()
            let oldID = try #require(try await nextFrame(connection)["id"] as? String)
            connection.serverSends(text: #"{"type":"subscribe_success","id":"\#(oldID)"}"#)
            while let event = await events.next(), event != .subscriptionEstablished("role") {}

            await c.clock.sleepers(atLeast: 1)
            c.clock.advance(by: .seconds(60))
            let replacement = try await Scripted.handshake(c.connector)
            let subscribe = try await nextFrame(replacement)
            #expect(subscribe["channel"] as? String == "/ns/role")
            let newID = try #require(subscribe["id"] as? String)
            #expect(newID != oldID)
            #expect(connection.state.clientClose == nil, "the old socket stays open until the new one is subscribed")
            connection.serverSends(text: #"{"type":"data","id":"\#(oldID)","event":"{\"n\":1}"}"#)
            replacement.serverSends(text: #"{"type":"subscribe_success","id":"\#(newID)"}"#)
            // The same event on the new socket is not delivered again; the next one is.
            replacement.serverSends(text: #"{"type":"data","id":"\#(newID)","event":"{\"n\":1}"}"#)
            replacement.serverSends(text: #"{"type":"data","id":"\#(newID)","event":"{\"n\":2}"}"#)
            var received: [String] = []
            while received.count < 2, let event = await events.next() {
                switch event {
                case .received(let envelope): received.append(String(decoding: envelope.payload, as: UTF8.self))
                case .connectionStateChanged(let state): Issue.record("consumers saw a state change: \(state)")
                default: break
                }
            }
            #expect(received == [#"{"n":1}"#, #"{"n":2}"#])
            #expect(await connection.nextSentText() == nil, "the old socket is closed after the switch, nothing else sent on it")
            #expect(connection.state.clientClose?.code == .normalClosure)
            c.transport.shutDown()
        }
    }

    @Test("timers keep working after the keep-alive deadline moved later many times (a reconnect is not lost)")
    func timerAfterMovedDeadlines() async throws {
        let connector = ScriptedWebSocketConnector()
        let clock = ManualClock()
        let transport = AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: URL(string: "ws://127.0.0.1:1/event/realtime")!, authorization: .apiKey("k"),
                reconnectPolicy: .fixedDelay(.seconds(10), reconnectAfterNormalClose: true), connectionLifetime: nil, clock: clock),
            connector: connector)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transport.run() }
            var events = transport.events.makeAsyncIterator()
            transport.connect(as: TransportIdentity(userId: "u", orgId: "o", tokens: .constant("")))
            try transport.subscribe(SubscriptionRequest(key: "a", target: .channel("ns/a")))
            let connection = try await Scripted.handshake(connector)  // keep-alive timeout 300 s
            let id = try #require(try await nextFrame(connection)["id"] as? String)
            connection.serverSends(text: #"{"type":"subscribe_success","id":"\#(id)"}"#)
            // A frame every 60 s moves the 300 s deadline on six times; each is awaited, so the
            // clock only moves once the transport has seen it.
            for _ in 0..<6 {
                clock.advance(by: .seconds(60))
                connection.serverSends(text: #"{"type":"data","id":"\#(id)","event":"{}"}"#)
                while let event = await events.next() { if case .received = event { break } }
            }
            clock.advance(by: .seconds(2))
            connection.serverCloses(code: .internalError)
            while let event = await events.next() {
                if case .connectionStateChanged(.waitingToReconnect) = event { break }
            }
            clock.advance(by: .seconds(10))
            #expect(await connector.nextAttempt() != nil, "the reconnect after 10 s happens")
            transport.shutDown()
        }
    }
}
