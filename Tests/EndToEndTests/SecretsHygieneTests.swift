import Foundation
import Logging
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardSync
import SwitchboardTesting
import Testing

/// Every line a log handler receives, rendered with its metadata, from every logger of a test.
final class CapturedLog: Sendable {
    private let lines = LockedValue<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { label in Handler(label: label, log: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let label: String
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            log.append("\(label) \(event.level) \(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
        }
    }
}

/// Issue 8: with every logger at trace, no API key, token or token signature reaches a log line,
/// on either transport, through the notifier, the WebSocket engine, the sync client or the
/// emulator.
@Suite("End to end: no secret in any log line at trace level", .timeLimit(.minutes(1)))
struct SecretsHygieneTests {
    @Test("API key, JWT and its signature stay out of the logs of both transports, the engine, the notifier, the sync client and the emulator")
    func noSecretsLogged() async throws {
        let log = CapturedLog()
        let jwt = EndToEnd.jwt(subject: EndToEnd.userId)
        let signature = String(jwt.split(separator: ".").last ?? "")
        var emulatorConfiguration = EndToEnd.emulatorConfiguration()
        emulatorConfiguration.logger = log.logger("emulator")
        try await withRunningEmulator(configuration: emulatorConfiguration) { emulator, endpoints in
            let connector = NIOWebSocketConnector(configuration: .init(logger: log.logger("nio")))
            let channel = "\(EndToEnd.namespace)/user/\(EndToEnd.userId)/roleChanged"
            let transports: [any EventTransport] = [
                AppSyncEventsSubscriber(
                    configuration: .init(realtimeURL: URL(string: endpoints.realtimeURL)!, authorization: .apiKey(EndToEnd.apiKey),
                                         logger: log.logger("appsync")),
                    connector: connector),
                GraphQLSubscriber(
                    configuration: .init(url: URL(string: endpoints.graphQLURL)!, wireProtocol: .graphQLTransportWS,
                                         logger: log.logger("graphql")),
                    connector: connector),
            ]
            for (index, transport) in transports.enumerated() {
                let notifier = BackendNotifier(
                    transport: transport,
                    session: SessionSource(.signedIn(userId: EndToEnd.userId, orgId: EndToEnd.orgId) { _ in jwt }),
                    logger: log.logger("notifier"))
                let roles = await notifier.roleValues()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await notifier.run() }
                    while emulator.subscriptionCount < 1 { try await Task.sleep(for: .milliseconds(2)) }
                    try emulator.publish(channel: channel, event: Payload.role("r\(index)"))
                    var iterator = roles.makeAsyncIterator()
                    #expect(await iterator.next()?.reason == "r\(index)")
                    await notifier.shutDown()
                    try await group.waitForAll()
                }
                while emulator.connectionCount > 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            var sync = SyncClient.Configuration(baseURL: URL(string: endpoints.syncBaseURL)!)
            sync.headers = { [("Authorization", jwt), ("x-api-key", EndToEnd.apiKey)] }
            let summary = try await SyncClient(configuration: sync, connector: connector, logger: log.logger("sync"))
                .catchUp(store: InMemoryCheckpointStore()) { _ in }
            #expect(summary.deliveredEvents == 2)
        }
        let lines = log.all
        #expect(lines.count > 50, "trace logging produced \(lines.count) lines")
        for label in ["emulator", "nio", "appsync", "graphql", "notifier", "sync"] {
            #expect(lines.contains { $0.hasPrefix("\(label) ") }, "nothing logged by \(label)")
        }
        for (name, secret) in [("the API key", EndToEnd.apiKey), ("the JWT", jwt), ("the JWT's signature", signature)] {
            let leaks = lines.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "\(name) in \(leaks.count) lines, e.g. \(leaks.first ?? "")")
        }
    }
}
