import Foundation
import Logging
import MetricsTestKit
@testable import SwitchboardGraphQL
import SwitchboardCore
import SwitchboardTesting
import Testing

/// Captures every log line, message and metadata, at trace level.
struct CapturingLogHandler: LogHandler {
    let lines = LockedValue([String]())
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.withLock { $0.append("\(event.level) \(event.message) \(all)") }
    }
}

@Suite("GraphQLSubscriber logging and metrics", .timeLimit(.minutes(1)))
struct GraphQLLoggingMetricsTests {
    @Test("no token appears in any log line, at trace level, in any dialect", arguments: GraphQLProtocol.allCases)
    func neverLogsToken(_ dialect: GraphQLProtocol) async throws {
        let handler = CapturingLogHandler()
        let metrics = TestMetrics()
        let connector = ScriptedWebSocketConnector()
        let secret = "SECRET-TOKEN-42"
        let configuration = GraphQLSubscriber.Configuration(
            url: URL(string: "wss://example.test/graphql")!, wireProtocol: dialect, reconnectPolicy: .fixedDelay(.zero),
            appSyncHost: "api.example.test", clock: ManualClock(), random: SeededRandomNumberGenerator(seed: 1),
            logger: Logger(label: "test", factory: { _ in handler }), metricsFactory: metrics)
        let transport = GraphQLSubscriber(configuration: configuration, connector: connector)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transport.run() }
            group.addTask { for await _ in transport.events {} }
            try transport.subscribe(TransportHarness.request)
            transport.connect(as: TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant(secret)))
            let socket = try #require(await connector.nextAttempt()?.connection)
            let initFrame = try #require(await socket.nextSentText())
            if dialect != .appSyncGraphQL { #expect(initFrame.contains(secret), "the token must reach the wire") }
            socket.serverSends(text: #"{"type":"connection_ack"}"#)
            let start = try JSONValue.parse(try #require(await socket.nextSentText()))
            let id = try #require(start["id"]?.string)
            if dialect == .appSyncGraphQL { socket.serverSends(text: #"{"type":"start_ack","id":"\#(id)"}"#) }
            let type = dialect == .graphQLTransportWS ? "next" : "data"
            socket.serverSends(text: #"{"type":"\#(type)","id":"\#(id)","payload":{"data":{"x":1}}}"#)
            socket.serverSends(text: "garbage")
            socket.serverCloses(code: WebSocketCloseCode(4403))
            _ = await connector.nextAttempt()
            transport.shutDown()
            try await group.waitForAll()
        }
        let lines = handler.lines.withLock { $0 }
        #expect(lines.contains { $0.contains("frame in") }, "frames are logged at trace")
        #expect(!lines.contains { $0.contains(secret) })
        #expect(!lines.contains { $0.contains("header=") })
        let labels = ["connections", "subscriptions", "events", "decode_failures", "reconnects"]
        for label in labels {
            let counter = try metrics.expectCounter("switchboard.graphql.\(label)", [("protocol", dialect.rawValue)])
            #expect(counter.totalValue >= 1, "\(label)")
        }
    }
}
