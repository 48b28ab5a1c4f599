import ArgumentParser
import Foundation
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardNIO

/// `switchboard publish`: AppSync Events publish over HTTP, or over the WebSocket with `--ws`.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish events to an AppSync Events channel over HTTP (or the WebSocket) and print each event's result.",
        discussion: """
            Each --event is one event's JSON text. More than five are sent in batches of five. \
            With --ws the events go over the real-time WebSocket instead: --url is then the \
            ws(s)://…/event/realtime endpoint. \
            Prints one line per event: its index, then "ok <identifier>" or "refused <code>: <message>". \
            Exits non-zero when any event was refused or the request failed; the error names the \
            cause (TLS trust, a refused connection, a timeout, the HTTP status and body, and after \
            retries the last attempt's error). --ca-file trusts a private CA on both paths.

            Examples:
              switchboard publish --url http://127.0.0.1:8080/event \\
                --auth api-key:dev-key --channel vortex-app/user/u1/roleChanged \\
                --event '{"eventType":"user/roleChanged","reason":"promoted"}'
              switchboard publish --ws --url ws://127.0.0.1:8080/event/realtime \\
                --auth api-key:dev-key --channel vortex-app/user/u1/roleChanged \\
                --event '{"eventType":"user/roleChanged","reason":"promoted"}'
              switchboard publish --url https://localhost:8443/event --ca-file emu.pem \\
                --auth api-key:dev-key --channel vortex-app/user/u1/roleChanged \\
                --event '{"eventType":"user/roleChanged","reason":"promoted"}'
            """)

    @Option(help: "The HTTP endpoint, https://<id>.appsync-api.<region>.amazonaws.com/event (with --ws: the wss://…/event/realtime endpoint).")
    var url: String?

    @Flag(help: "Publish over the real-time WebSocket instead of HTTP.")
    var ws = false

    @Option(help: "The channel, for example vortex-app/user/u1/roleChanged (no *).")
    var channel: String

    @Option(name: .customLong("event"), help: "One event's JSON text (repeatable).")
    var events: [String] = []

    @Option(help: "api-key:KEY, jwt:TOKEN or lambda:TOKEN.")
    var auth: String?

    @Option(name: .customLong("ca-file"), help: "Also trust the PEM certificates in this file (https or wss to a private CA, or `serve --tls --cert-out`).")
    var caFile: String?

    @Flag(help: "Allow plaintext http:// or ws:// to a host other than this machine (credentials travel unencrypted).")
    var allowPlaintext = false

    @Option(help: "A JSON file with defaults (keys: httpUrl, url, auth).")
    var config: String?

    func run() async throws {
        let file = try ConfigFile.load(config)
        guard let authText = auth ?? file.auth else { throw ValidationError("--auth is required (or \"auth\" in --config)") }
        guard !events.isEmpty else { throw ValidationError("give at least one --event") }
        let authorization = try AuthSpec(parsing: authText)
        let mode: AppSyncAuthorization =
            switch authorization {
            case .apiKey(let key): .apiKey(key)
            case .jwt(let token), .lambda(let token): .token(.constant(token))
            }
        let result: AppSyncPublishResult
        do {
            result = ws ? try await publishOverSocket(mode, file: file) : try await publishOverHTTP(mode, file: file)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CLIError(FailureText.describe(error))
        }
        var lines: [(Int, String)] = result.accepted.map { ($0.index, "ok \($0.identifier)") }
        lines += result.refused.map { ($0.index, "refused \($0.code): \($0.message)") }
        for (index, text) in lines.sorted(by: { $0.0 < $1.0 }) { Console.shared.out("\(index) \(text)") }
        if !result.allAccepted { throw CLIError("\(result.refused.count) of \(events.count) events were refused") }
    }

    private func publishOverHTTP(_ mode: AppSyncAuthorization, file: ConfigFile) async throws -> AppSyncPublishResult {
        guard let text = url ?? file.httpUrl, let endpoint = URL(string: text), endpoint.scheme?.hasPrefix("http") == true else {
            throw ValidationError("--url must be the http(s) endpoint (or \"httpUrl\" in --config)")
        }
        let client = try TrustingHTTPClient(caFile: caFile, allowPlaintext: allowPlaintext)
        return try await AppSyncHTTPPublisher(url: endpoint, authorization: mode, client: client).publish(events, to: channel)
    }

    /// Connects, publishes in messages of at most five events, and closes.
    private func publishOverSocket(_ mode: AppSyncAuthorization, file: ConfigFile) async throws -> AppSyncPublishResult {
        guard let text = url ?? file.url, let endpoint = URL(string: text), endpoint.scheme?.hasPrefix("ws") == true else {
            throw ValidationError("with --ws, --url must be the ws(s)://…/event/realtime endpoint (or \"url\" in --config)")
        }
        let transport = AppSyncEventsSubscriber(
            // A command line waits longer than an app would: connecting is part of every publish.
            configuration: .init(realtimeURL: endpoint, authorization: mode, reconnectPolicy: .never, publishTimeout: .seconds(30)),
            connector: try NIOWebSocketConnector.trusting(caFile: caFile, allowPlaintext: allowPlaintext))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transport.run() }
            defer { transport.shutDown() }
            transport.connect(as: TransportIdentity(userId: "cli", orgId: "cli", tokens: .constant("")))
            return try await AppSyncPublishResult.inBatches(of: AppSyncHTTPPublisher.maximumEventsPerRequest, events) {
                try await transport.publish($0, to: channel)
            }
        }
    }
}
