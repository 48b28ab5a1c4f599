import ArgumentParser
import Foundation
import Switchboard

/// `switchboard listen`: prints the typed events of any endpoint as JSON Lines.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Run a BackendNotifier against an endpoint and print each typed event as one JSON line.",
        discussion: """
            Each line is {"stream": "<name>", "event": {…}} with the event in the new contract's field \
            names (siteId, aiControlSetting), written and flushed as it arrives. Connection states and \
            errors go to standard error. Streams: \(StreamName.allCases.map(\.rawValue).joined(separator: ", ")) \
            (default: the nine per-channel ones).

            Examples:
              switchboard listen --transport appsync --url ws://127.0.0.1:8080/event/realtime \\
                --auth api-key:dev-key --user-id u1 --org-id o1 --count 5
              switchboard listen --transport graphql --graphql-protocol graphql-transport-ws \\
                --url ws://127.0.0.1:8080/graphql --auth jwt:$TOKEN --user-id u1 --org-id o1 --streams role,device
              SWITCHBOARD_TRANSPORT=graphql switchboard listen --config listen.json
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

    @Option(help: "Comma-separated stream names.")
    var streams: String?

    @Option(name: .customLong("ca-file"), help: "Also trust the PEM certificates in this file (wss to a private CA or `serve --tls`).")
    var caFile: String?

    @Flag(help: "Allow plaintext ws:// to a host other than this machine (credentials travel unencrypted).")
    var allowPlaintext = false

    @Option(help: "Exit 0 after this many events.")
    var count: Int?

    @Option(help: "Exit non-zero if --count events have not arrived after this many seconds.")
    var timeout: Double?

    func run() async throws {
        let file = try options.file()
        let selection = try options.selection()
        guard let urlText = url ?? file.url, let url = URL(string: urlText) else {
            throw ValidationError("--url is required (or \"url\" in --config)")
        }
        guard let authText = auth ?? file.auth else { throw ValidationError("--auth is required (or \"auth\" in --config)") }
        let authorization = try AuthSpec(parsing: authText)
        guard let userId = userId ?? file.userId, let orgId = orgId ?? file.orgId else {
            throw ValidationError("--user-id and --org-id are required (or \"userId\"/\"orgId\" in --config)")
        }
        let names = try streams.map(StreamName.parseList) ?? StreamName.perChannel
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be positive") }

        let transport = try TransportFactory.make(
            selection.kind,
            endpoint: TransportFactory.Endpoint(url: url, httpURL: (httpURL ?? file.httpUrl).flatMap(URL.init(string:))),
            authorization: authorization,
            wireProtocol: try options.wireProtocol(file),
            reconnectPolicy: try options.reconnectPolicy(file),
            connector: try .trusting(caFile: caFile, allowPlaintext: allowPlaintext))
        let secret = authorization.secret
        let session = SessionSource(.signedIn(userId: userId, orgId: orgId) { _ in secret })
        let notifier = BackendNotifier(transport: transport, session: session)
        Console.shared.err("listening with \(selection) as \(userId)/\(orgId), auth \(authorization)")

        let received = LockedValue(0)
        let limit = count
        let pump = EventPump(notifier: notifier, streams: names)
        let work: @Sendable () async throws -> Void = {
            try await pump.run { line in
                guard let text = try? line.json() else { return true }
                Console.shared.out(text)
                let total = received.withLock { value -> Int in
                    value += 1
                    return value
                }
                return limit.map { total < $0 } ?? true
            }
        }
        guard let timeout else { return try await work() }
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await work()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        if !finished {
            let got = received.withLock { $0 }
            throw CLIError("timed out after \(timeout) s with \(got)\(limit.map { " of \($0)" } ?? "") events")
        }
    }
}
