import ArgumentParser
import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardNIO

/// `switchboard shadow`: both transports side by side for one user, compared event by event.
struct ShadowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shadow",
        abstract: "Run both transports side by side for one user and report, per stream, how their events match.",
        discussion: """
            An ops tool, not the library's notifier (which never runs two transports): a legacy \
            GraphQL notifier and an AppSync Events notifier follow the same user; every typed event \
            is matched with its twin from the other side by stream and content (without the \
            eventType and timestamp only AppSync Events carries). An event whose twin has not come \
            within --match-window counts as only on its side. Per stream it reports matched, only \
            on legacy, only on AppSync Events, and the latency difference of matched events (p50, \
            p99 of AppSync Events arrival minus legacy arrival).

            A summary goes to standard output every --interval seconds and when the run ends \
            (Ctrl-C, SIGTERM or --duration). --metrics-port serves the same figures at \
            http://127.0.0.1:PORT/metrics in the Prometheus text format (0 picks a free port, \
            printed at start). --max-divergence makes it exit 1 as soon as the share of unmatched \
            events exceeds the bound (once --min-events were judged). A side whose connection fails \
            for good (refused credentials) ends the run with exit status 2.

            Examples:
              switchboard shadow --graphql-url ws://127.0.0.1:8080/graphql \\
                --appsync-url ws://127.0.0.1:8080/event/realtime \\
                --auth api-key:dev-key --user-id u1 --org-id o1 --interval 5
              switchboard shadow --config app.json \\
                --graphql-url wss://legacy.example.com/graphql \\
                --appsync-url "$APPSYNC_REALTIME_URL" \\
                --graphql-auth jwt:$TOKEN --appsync-auth api-key:$API_KEY \\
                --metrics-port 9464 --max-divergence 0.01 --interval 60
            """)

    @Option(help: "A JSON file with defaults (keys: auth, graphqlProtocol, userId, orgId, namespace, reconnectDelay).")
    var config: String?

    @Option(name: .customLong("graphql-url"), help: "The legacy GraphQL WebSocket URL.")
    var graphQLURL: String

    @Option(name: .customLong("graphql-protocol"), help: "graphql-ws, graphql-transport-ws or appsync-graphql (default: graphql-ws).")
    var graphQLProtocol: String?

    @Option(name: .customLong("appsync-url"), help: "The AppSync Events realtime WebSocket URL.")
    var appSyncURL: String

    @Option(name: .customLong("appsync-http-url"), help: "The AppSync HTTP endpoint (its host authorizes the connection; default: derived).")
    var appSyncHTTPURL: String?

    @Option(help: "api-key:KEY, jwt:TOKEN or lambda:TOKEN for both sides (or \"auth\" in --config).")
    var auth: String?

    @Option(name: .customLong("graphql-auth"), help: "The legacy side's authorization, when it differs.")
    var graphQLAuth: String?

    @Option(name: .customLong("appsync-auth"), help: "The AppSync Events side's authorization, when it differs.")
    var appSyncAuth: String?

    @Option(name: .customLong("user-id"), help: "The user both sides follow.")
    var userId: String?

    @Option(name: .customLong("org-id"), help: "The user's organization.")
    var orgId: String?

    @Option(help: "The AppSync Events channel namespace (default: \"namespace\" in --config, else vortex-app).")
    var namespace: String?

    @Option(help: "Comma-separated stream names (default: the nine per-channel ones).")
    var streams: String?

    @Option(name: .customLong("match-window"), help: "Seconds an event waits for its twin before it counts as unmatched.")
    var matchWindow: Double = 5

    @Option(help: "Seconds between summaries.")
    var interval: Double = 10

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Option(name: .customLong("metrics-port"), help: "Serve the figures for Prometheus on 127.0.0.1:PORT/metrics (0: any free port).")
    var metricsPort: Int?

    @Option(name: .customLong("max-divergence"), help: "Exit 1 when the share of unmatched events (0…1) exceeds this bound.")
    var maxDivergence: Double?

    @Option(name: .customLong("min-events"), help: "Judge --max-divergence only after this many events.")
    var minEvents = 20

    @Option(name: .customLong("ca-file"), help: "Also trust the PEM certificates in this file (wss to a private CA or `serve --tls`).")
    var caFile: String?

    @Flag(help: "Allow plaintext ws:// to a host other than this machine (credentials travel unencrypted).")
    var allowPlaintext = false

    @Option(name: .customLong("reconnect-delay"), help: "Seconds either side waits before reconnecting (default: 10).")
    var reconnectDelay: Double?

    func validate() throws {
        for (name, value) in [("--match-window", matchWindow), ("--interval", interval)] where !(value > 0 && value.isFinite) {
            throw ValidationError("\(name) must be a positive number of seconds")
        }
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration must be positive") }
        if let metricsPort, !(0...65_535).contains(metricsPort) { throw ValidationError("--metrics-port must be between 0 and 65535") }
        if let maxDivergence, !(0...1).contains(maxDivergence) {
            throw ValidationError("--max-divergence is a share between 0 and 1, such as 0.01 for 1%")
        }
        if minEvents < 1 { throw ValidationError("--min-events must be at least 1") }
    }

    func run() async throws {
        let console = Console.shared
        let run = try makeRun(console: console)
        let metrics = ShadowMetrics()
        let bound = maxDivergence, minEvents = self.minEvents, metricsPort = self.metricsPort
        let deadline = duration.map { Duration.milliseconds(Int64($0 * 1000)) }
        let verdict = LockedValue<Int32>(0)
        do {
            try await withSignalCancellation {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    if let metricsPort {
                        group.addTask {
                            do {
                                try await MetricsEndpoint.serve(port: metricsPort, text: { metrics.exposition(of: run.snapshot()) }) { port in
                                    console.out("metrics: http://127.0.0.1:\(port)/metrics")
                                }
                            } catch {
                                console.err("Error: the metrics endpoint cannot serve on 127.0.0.1:\(metricsPort): \(FailureText.describe(error))")
                                verdict.withLock { $0 = 2 }
                                run.stop()
                            }
                        }
                    }
                    if let deadline {
                        group.addTask {
                            try await Task.sleep(for: deadline)
                            run.stop()
                        }
                    }
                    let last = try await run.run { snapshot in
                        console.out(snapshot.text + "\n")
                        if let bound, snapshot.total.judged >= minEvents, snapshot.divergence > bound {
                            verdict.withLock { $0 = 1 }
                            return false
                        }
                        return true
                    }
                    group.cancelAll()
                    Self.finish(last, bound: bound, minEvents: minEvents, verdict: verdict, console: console)
                }
            }
        } catch let failure as ShadowRun.Failure {
            console.out(run.snapshot().text)
            console.err("Error: the \(failure.side) side failed: \(FailureText.describe(failure.error))")
            throw ExitCode(2)
        }
        let status = verdict.withLock { $0 }
        if status != 0 { throw ExitCode(status) }
    }

    /// Prints the final summary and judges the bound on it.
    private static func finish(
        _ snapshot: ShadowSnapshot, bound: Double?, minEvents: Int, verdict: LockedValue<Int32>, console: Console
    ) {
        console.out("final " + snapshot.text)
        guard let bound else { return }
        let share = String(format: "%.1f%%", snapshot.divergence * 100)
        if snapshot.total.judged >= minEvents, snapshot.divergence > bound {
            verdict.withLock { $0 = 1 }
            console.err("divergence \(share) exceeds --max-divergence \(bound)")
        }
    }

    /// Resolves the options into the two notifiers and the run.
    /// - Parameters:
    ///   - console: Where each side's errors go.
    ///   - clock: The run's clock (summaries, the match window, arrival times).
    func makeRun(console: Console, clock: any Clock<Duration> = ContinuousClock()) throws -> ShadowRun {
        let file = try ConfigFile.load(config)
        guard let userId = userId ?? file.userId, let orgId = orgId ?? file.orgId else {
            throw ValidationError("--user-id and --org-id are required (or \"userId\"/\"orgId\" in --config)")
        }
        func authorization(_ specific: String?, _ flag: String) throws -> AuthSpec {
            guard let text = specific ?? auth ?? file.auth else {
                throw ValidationError("\(flag) or --auth is required (or \"auth\" in --config)")
            }
            return try AuthSpec(parsing: text)
        }
        let legacyAuth = try authorization(graphQLAuth, "--graphql-auth")
        let appSyncAuthorization = try authorization(appSyncAuth, "--appsync-auth")
        guard let legacyURL = URL(string: graphQLURL), legacyURL.host != nil,
            let appSyncEndpoint = URL(string: appSyncURL), appSyncEndpoint.host != nil
        else { throw ValidationError("--graphql-url and --appsync-url must be ws(s):// URLs") }
        let options = try TransportOptions.parse(
            ["--transport", "graphql"] + (graphQLProtocol.map { ["--graphql-protocol", $0] } ?? [])
                + (reconnectDelay.map { ["--reconnect-delay", String($0)] } ?? []) + (config.map { ["--config", $0] } ?? []))
        let connector = try NIOWebSocketConnector.trusting(caFile: caFile, allowPlaintext: allowPlaintext)
        let configuration = BackendNotifier.Configuration(namespace: namespace ?? file.namespace ?? "vortex-app")
        func side(_ kind: TransportKind, url: URL, httpURL: URL?, authorization: AuthSpec) throws -> ShadowRun.Side {
            let transport = try TransportFactory.make(
                kind, endpoint: .init(url: url, httpURL: httpURL), authorization: authorization,
                wireProtocol: try options.wireProtocol(file), reconnectPolicy: try options.reconnectPolicy(file),
                connector: connector)
            let secret = authorization.secret
            let session = SessionSource(.signedIn(userId: userId, orgId: orgId) { _ in secret })
            let notifier = BackendNotifier(transport: transport, session: session, configuration: configuration)
            return ShadowRun.Side(notifier: notifier, endpoint: CheckCommand.redacted(url))
        }
        return ShadowRun(
            legacy: try side(.graphql, url: legacyURL, httpURL: nil, authorization: legacyAuth),
            appSync: try side(
                .appsync, url: appSyncEndpoint, httpURL: appSyncHTTPURL.flatMap(URL.init(string:)),
                authorization: appSyncAuthorization),
            streams: try streams.map(StreamName.parseList) ?? StreamName.perChannel,
            window: .milliseconds(Int64(matchWindow * 1000)), interval: .milliseconds(Int64(interval * 1000)), clock: clock,
            onError: { side, error in console.err("\(side): \(FailureText.describe(error))") })
    }
}
