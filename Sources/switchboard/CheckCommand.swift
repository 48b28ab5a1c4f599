import ArgumentParser
import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardNIO

/// `switchboard check`: a preflight for a deployment pipeline.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Preflight: connect as the app would, subscribe to every stream, ping, and report per stream.",
        discussion: """
            Resolves the transport as the app does (--transport, else SWITCHBOARD_TRANSPORT, else \
            "transport" in --config, else appsync), connects with the real authorization and \
            subscribes to every stream's channel (AppSync Events: the nine channels and the two \
            family wildcards) or legacy subscription (GraphQL: the five root fields). Reports per \
            stream: established, rejected (with the server's message) or no answer; and the connect \
            time, the acknowledgement, the keep-alive window the server announced and a ping's \
            round trip. It never reconnects.

            Exit status: 0 every stream established; 1 some rejected or without an answer (or no \
            answer to the ping); 2 a configuration or connection failure (refused key, no \
            acknowledgement, unreachable or untrusted server). --json prints one JSON document.

            Examples:
              switchboard check --config app.json --json
              switchboard check --transport appsync --auth api-key:$API_KEY \\
                --url wss://ID.appsync-realtime-api.REGION.amazonaws.com/event/realtime \\
                --user-id u1 --org-id o1
              switchboard check --transport graphql --url ws://127.0.0.1:8080/graphql \\
                --auth jwt:$TOKEN --user-id u1 --org-id o1 --timeout 5
            """)

    @OptionGroup var options: TransportOptions

    @Option(help: "The WebSocket URL (AppSync realtime endpoint or GraphQL endpoint).")
    var url: String?

    @Option(name: .customLong("http-url"), help: "The AppSync HTTP endpoint (its host authorizes the connection; default: derived from --url).")
    var httpURL: String?

    @Option(help: "api-key:KEY, jwt:TOKEN or lambda:TOKEN.")
    var auth: String?

    @Option(name: .customLong("user-id"), help: "The signed-in user.")
    var userId: String?

    @Option(name: .customLong("org-id"), help: "The user's organization.")
    var orgId: String?

    @Option(help: "The AppSync Events channel namespace (default: \"namespace\" in --config, else vortex-app).")
    var namespace: String?

    @Option(help: "Comma-separated stream names to check (default: all eleven).")
    var streams: String?

    @Option(name: .customLong("ca-file"), help: "Also trust the PEM certificates in this file (wss to a private CA or `serve --tls`).")
    var caFile: String?

    @Flag(help: "Allow plaintext ws:// to a host other than this machine (credentials travel unencrypted).")
    var allowPlaintext = false

    @Option(help: "Seconds to wait for the connection, and then for the subscriptions' answers.")
    var timeout: Double = 10

    @Option(name: .customLong("ping-timeout"), help: "Seconds to wait for the ping's answer.")
    var pingTimeout: Double = 5

    @Flag(help: "Print one JSON document instead of text.")
    var json = false

    func run() async throws {
        let console = Console.shared
        let prepared: (Preflight, PreflightReport, TransportFactory.Setup)
        do {
            prepared = try prepare()
        } catch {
            let message = (error as? ValidationError)?.message ?? FailureText.describe(error)
            if json {
                console.out(try Self.errorDocument(message))
            }
            console.err("Error: \(message)")
            throw ExitCode(2)
        }
        var preflight = prepared.0
        let setup = prepared.2
        if !json {
            let count = preflight.targets.count
            preflight.afterConnect = { console.err("connected; subscribing to \(count) streams") }
        }
        let report = try await preflight.run(into: prepared.1, connector: setup.connector) { connector in
            try setup.make(connector)
        }
        console.out(json ? try report.json() : report.text)
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }

    /// Resolves everything before connecting; every problem is a `ValidationError` (exit 2).
    func prepare() throws -> (Preflight, PreflightReport, TransportFactory.Setup) {
        let file = try options.file()
        let selection = try options.selection()
        guard let urlText = url ?? file.url, let endpoint = URL(string: urlText), endpoint.host != nil else {
            throw ValidationError("--url is required (or \"url\" in --config)")
        }
        guard let authText = auth ?? file.auth else { throw ValidationError("--auth is required (or \"auth\" in --config)") }
        let authorization = try AuthSpec(parsing: authText)
        guard let userId = userId ?? file.userId, let orgId = orgId ?? file.orgId else {
            throw ValidationError("--user-id and --org-id are required (or \"userId\"/\"orgId\" in --config)")
        }
        guard timeout > 0, timeout.isFinite, pingTimeout > 0, pingTimeout.isFinite else {
            throw ValidationError("--timeout and --ping-timeout must be positive")
        }
        let secret = authorization.secret
        let identity = TransportIdentity(userId: userId, orgId: orgId, tokens: TokenProvider { _ in secret })
        let targets: [PreflightTarget]
        do {
            targets = try PreflightTarget.all(
                kind: selection.kind, identity: identity, namespace: namespace ?? file.namespace ?? "vortex-app",
                streams: try streams.map(StreamName.parseList))
        } catch let error as SwitchboardError {
            throw ValidationError(error.message)
        }
        let setup = TransportFactory.Setup(
            kind: selection.kind,
            endpoint: .init(url: endpoint, httpURL: (httpURL ?? file.httpUrl).flatMap(URL.init(string:))),
            authorization: authorization, wireProtocol: try options.wireProtocol(file), reconnectPolicy: .never,
            connector: try .trusting(caFile: caFile, allowPlaintext: allowPlaintext))
        let preflight = Preflight(
            targets: targets, identity: identity,
            answerTimeout: .milliseconds(Int64(timeout * 1000)), pingTimeout: .milliseconds(Int64(pingTimeout * 1000)))
        let report = PreflightReport(
            transport: selection.kind.rawValue, selectedBy: selection.source.description, url: Self.redacted(endpoint),
            userId: userId, orgId: orgId, subscriptionsAcknowledged: true, streams: [])
        return (preflight, report, setup)
    }

    /// The URL without its query (an AppSync GraphQL URL may carry the auth header there).
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "?" }
        components.query = nil
        components.user = nil
        components.password = nil
        return components.string ?? "?"
    }

    /// The JSON document for a failure before connecting.
    static func errorDocument(_ message: String) throws -> String {
        let object: [String: Any] = ["verdict": "configuration failed: \(message)", "exitCode": 2]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
