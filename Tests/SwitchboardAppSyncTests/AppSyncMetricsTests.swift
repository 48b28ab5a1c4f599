import Foundation
import Logging
import MetricsTestKit
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("AppSync transport metrics and logs", .timeLimit(.minutes(1)))
struct AppSyncMetricsTests {
    @Test("counts connections, reconnects, subscriptions, events, decode failures and publish outcomes")
    func counters() async throws {
        let metrics = TestMetrics()
        let connector = ScriptedWebSocketConnector()
        let clock = ManualClock()
        let transport = AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: URL(string: "ws://127.0.0.1:1/event/realtime")!, authorization: .apiKey("k"),
                reconnectPolicy: .fixedDelay(.zero, reconnectAfterNormalClose: true), clock: clock, metricsFactory: metrics),
            connector: connector)
        func count(_ name: String) throws -> Int64 { try metrics.expectCounter("switchboard.appsync.\(name)").totalValue }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transport.run() }
            var events = transport.events.makeAsyncIterator()
            transport.connect(as: TransportIdentity(userId: "u", orgId: "o", tokens: .constant("")))
            try transport.subscribe(SubscriptionRequest(key: "a", target: .channel("ns/a")))
            let first = try #require(await connector.nextAttempt()?.connection)
            _ = await first.nextSentText()
            first.serverSends(text: #"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
            let subscribe = try #require(await first.nextSentText())
            let id = try #require((try JSONSerialization.jsonObject(with: Data(subscribe.utf8)) as? [String: Any])?["id"] as? String)
            first.serverSends(text: #"{"type":"subscribe_success","id":"\#(id)"}"#)
            first.serverSends(text: #"{"type":"data","id":"\#(id)","event":"{}"}"#)
            first.serverSends(text: "not json")
            first.serverSends(text: #"{"type":"data","id":"\#(id)","event":"[]"}"#)
            var received = 0
            while received < 2, let event = await events.next() { if case .received = event { received += 1 } }

            let publishing = Task { try await transport.publish(["{}", "{}"], to: "ns/a") }
            let publish = try #require(await first.nextSentText())
            let publishID = try #require((try JSONSerialization.jsonObject(with: Data(publish.utf8)) as? [String: Any])?["id"] as? String)
            first.serverSends(text: #"{"type":"publish_success","id":"\#(publishID)","successful":[{"identifier":"x","index":0}],"failed":[{"identifier":"y","index":1,"code":"E","message":"m"}]}"#)
            _ = try await publishing.value

            first.serverCloses(code: .internalError)
            let second = try #require(await connector.nextAttempt()?.connection)
            _ = await second.nextSentText()
            second.serverSends(text: #"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
            _ = await second.nextSentText()
            #expect(try count("connections") == 2)
            #expect(try count("reconnects") == 1)
            #expect(try count("subscriptions") == 2, "one subscribe per connection")
            #expect(try count("events") == 2)
            #expect(try count("decode_failures") == 1)
            #expect(try count("publish.accepted") == 1)
            #expect(try count("publish.refused") == 1)
            #expect(try count("publish.failed") == 0)
            transport.shutDown()
        }
    }

    @Test("with IAM, neither the secret, the session token nor a signature appears in any log line")
    func iamSecretsNotLogged() async throws {
        let lines = LockedBox<[String]>([])
        let connector = ScriptedWebSocketConnector()
        let transport = AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: URL(string: "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!,
                authorization: .iam(region: "eu-west-1") {
                    AWSCredentials(accessKeyId: "AKIDSECRETKEYID", secretAccessKey: "very-secret-key", sessionToken: "very-secret-session")
                },
                clock: ManualClock(), logger: Logger(label: "test", factory: { _ in LineCollector(lines) })),
            connector: connector)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transport.run() }
            transport.connect(as: TransportIdentity(userId: "u", orgId: "o", tokens: .constant("")))
            try transport.subscribe(SubscriptionRequest(key: "a", target: .channel("ns/a")))
            let attempt = try #require(await connector.nextAttempt())
            let connection = try #require(attempt.connection)
            _ = await connection.nextSentText()
            connection.serverSends(text: #"{"type":"connection_ack","connectionTimeoutMs":300000}"#)
            let subscribe = try #require(await connection.nextSentText())
            let authorization = try #require(
                (try JSONSerialization.jsonObject(with: Data(subscribe.utf8)) as? [String: Any])?["authorization"] as? [String: String])
            let signature = try #require(authorization["Authorization"]?.components(separatedBy: "Signature=").last)
            #expect(authorization["X-Amz-Security-Token"] == "very-secret-session")
            let publishing = Task { try await transport.publish(["{}"], to: "ns/a") }
            _ = await connection.nextSentText()
            publishing.cancel()
            await #expect(throws: CancellationError.self) { try await publishing.value }
            transport.shutDown()
            let logged = lines.value.joined(separator: "\n")
            #expect(!logged.isEmpty)
            for secret in ["very-secret-key", "very-secret-session", signature, "AKIDSECRETKEYID", attempt.request.subprotocols.last ?? "?"] {
                #expect(!logged.contains(secret), "\(secret) was logged")
            }
        }
    }
}

@Test("dump and description of an authorization show the mode only")
func authorizationRedacted() {
    for authorization in [AppSyncAuthorization.apiKey("da2-very-secret"), .token(.constant("very-secret"))] {
        var dumped = ""
        dump(authorization, to: &dumped)
        #expect(!dumped.contains("very-secret") && !"\(authorization)".contains("very-secret"), "\(dumped)")
    }
}

/// Collects every log line, at every level, with its metadata, for the secrets checks.
struct LineCollector: LogHandler {
    let lines: LockedBox<[String]>
    init(_ lines: LockedBox<[String]>) { self.lines = lines }
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.mutate { $0.append("\(event.message) \(merged)") }
    }
}
