import Foundation
import Logging
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardSync

/// The chaos soak: the emulator on loopback (in this process, a child process or one already
/// running; see ``SoakEmulator``), one `BackendNotifier` on the chosen transport with
/// catch-up, a consumer per stream, a publisher at a steady rate and a task injecting faults
/// drawn from a seeded plan. After the duration the faults stop, one last round is published,
/// and the soak waits until every event arrived (or the quiesce timeout), then reports.
///
/// Shared by `switchboard soak` and the short soak in `swift test`.
package enum SoakRun {
    static let apiKey = "soak-api-key"

    package static func run(_ configuration: SoakConfiguration) async throws -> SoakReport {
        let workload = SoakWorkload()
        let identities = SoakStream.allCases.map { $0.identity(over: configuration.transport) }
        return try await withServer(configuration) { server, memorySource in
            let endpoints = server.endpoints
            let connector = NIOWebSocketConnector()
            let session = SessionSource(.signedIn(userId: workload.userId, orgId: workload.orgId) { _ in apiKey })
            let catchUp = configuration.catchUp
                ? BackendNotifier.CatchUp(
                    source: SyncClient(configuration: .init(baseURL: URL(string: endpoints.syncBaseURL)!), connector: connector),
                    store: InMemoryCheckpointStore(), rememberedDeliveries: configuration.rememberedDeliveries)
                : nil
            let metrics = SoakMetrics()
            let clientClock = configuration.clientClock()
            let notifier = BackendNotifier(
                transport: makeTransport(configuration, endpoints: endpoints, connector: connector), session: session,
                configuration: .init(namespace: workload.namespace, catchUp: catchUp, now: clientClock.now),
                logger: configuration.logger,
                metricsFactory: metrics)
            let state = LockedValue(SoakState(ledger: SoakLedger(identities: identities)))
            var report = try await Driver(
                configuration: configuration, workload: workload, identities: identities, server: server,
                notifier: notifier, session: session, state: state
            ).run()
            report.memorySource = memorySource
            report.catchUpEvictions = metrics.totals(of: "switchboard.notifier.catch_up.evicted", by: "kind")
            let reading = notifier.backendClock.reading(at: notifier.backendClock.now())
            report.backendClock = reading.fromServer
                ? SoakReport.BackendClockReading(
                    clientOffset: clientClock.now().timeIntervalSince(reading.time),
                    uncertainty: reading.uncertainty, samples: notifier.backendClock.estimate.sampleCount)
                : nil
            report.consumerDrops = metrics.totals(of: "switchboard.notifier.consumer_dropped", by: "stream")
            report.memoryReleasedFreePages = configuration.releaseFreePagesBeforeSampling
            return report
        }
    }

    /// Runs `body` while the configured emulator serves: in this process, as a child process
    /// (stopped when `body` returns or throws), or one already running. `body` also gets what the
    /// report says about whose memory the samples are.
    static func withServer<Result: Sendable>(
        _ configuration: SoakConfiguration, _ body: (any SoakServer, String) async throws -> Result
    ) async throws -> Result {
        switch configuration.emulator {
        case .inProcess:
            var emulatorConfiguration = SwitchboardEmulator.Configuration(
                port: 0, auth: .init(apiKeys: [apiKey]), keepAliveInterval: configuration.keepAliveInterval,
                connectionTimeoutMs: configuration.connectionTimeoutMs, logger: configuration.logger)
            emulatorConfiguration.eventLogCapacity = configuration.eventLogCapacity
            emulatorConfiguration.graphQLConnectionInitTimeout = configuration.graphQLConnectionInitTimeout
            emulatorConfiguration.clockOffset = configuration.backendClockOffset
            return try await withRunningEmulator(configuration: emulatorConfiguration) { emulator, endpoints in
                try await body(
                    InProcessSoakServer(emulator: emulator, endpoints: endpoints),
                    "the soak's process: client and in-process emulator together")
            }
        case .child(let executable):
            return try await EmulatorProcess.withChild(executable: executable, arguments: serveArguments(configuration)) { endpoints, pid in
                try await body(
                    RemoteSoakServer(endpoints: endpoints, apiKey: apiKey),
                    "the client's process alone (emulator: child process \(pid), 127.0.0.1:\(endpoints.port))")
            }
        case .external(let baseURL):
            let endpoints = try RemoteSoakServer.endpoints(baseURL: baseURL)
            return try await body(
                RemoteSoakServer(endpoints: endpoints, apiKey: apiKey),
                "the client's process alone (emulator: already running at 127.0.0.1:\(endpoints.port))")
        }
    }

    /// The `switchboard serve` options that configure a child emulator as the in-process one.
    static func serveArguments(_ configuration: SoakConfiguration) -> [String] {
        [
            "--api-key", apiKey, "--ka-interval", "\(configuration.keepAliveInterval.seconds)",
            "--connection-timeout-ms", "\(configuration.connectionTimeoutMs)",
            "--event-log-capacity", "\(configuration.eventLogCapacity)",
            "--connection-init-timeout", "\(configuration.graphQLConnectionInitTimeout.seconds)",
            // One argument: a negative value on its own would be read as an option.
            "--clock-offset=\(configuration.backendClockOffset.seconds)",
        ]
    }

    static func makeTransport(
        _ configuration: SoakConfiguration, endpoints: SwitchboardEmulator.Endpoints, connector: NIOWebSocketConnector
    ) -> any EventTransport {
        // Reconnect at once, as after a normal close: the soak is about what gets lost, and
        // a reconnect delay only slows the faults down.
        let policy = ReconnectPolicy.fixedDelay(.milliseconds(10), reconnectAfterNormalClose: true)
        let deadline = configuration.keepAliveInterval * 3
        switch configuration.transport {
        case .appsync:
            return AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: endpoints.realtimeURL)!, authorization: .apiKey(apiKey), reconnectPolicy: policy,
                    logger: configuration.logger),
                connector: connector)
        case .graphQLWS, .graphQLTransportWS, .appSyncGraphQL:
            return GraphQLSubscriber(
                configuration: .init(
                    url: URL(string: endpoints.graphQLURL)!, wireProtocol: configuration.transport.wireProtocol,
                    reconnectPolicy: policy, keepAliveTimeout: deadline, pingInterval: configuration.keepAliveInterval,
                    pongTimeout: configuration.keepAliveInterval * 2, appSyncHost: endpoints.host, appSyncAuthorization: .apiKey,
                    logger: configuration.logger),
                connector: connector)
        }
    }
}
