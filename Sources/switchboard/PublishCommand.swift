import ArgumentParser
import Foundation
import SwitchboardAppSync
import SwitchboardCore

/// `switchboard publish`: AppSync Events publish over HTTP.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish events to an AppSync Events channel over HTTP and print each event's result.",
        discussion: """
            Each --event is one event's JSON text. More than five are sent in batches of five. \
            Prints one line per event: its index, then "ok <identifier>" or "refused <code>: <message>". \
            Exits non-zero when any event was refused or the request failed.

            Examples:
              switchboard publish --url http://127.0.0.1:8080/event --auth api-key:dev-key \\
                --channel vortex-app/user/u1/roleChanged --event '{"eventType":"user/roleChanged","reason":"promoted"}'
            """)

    @Option(help: "The HTTP endpoint, https://<id>.appsync-api.<region>.amazonaws.com/event.")
    var url: String?

    @Option(help: "The channel, for example vortex-app/user/u1/roleChanged (no *).")
    var channel: String

    @Option(name: .customLong("event"), help: "One event's JSON text (repeatable).")
    var events: [String] = []

    @Option(help: "api-key:KEY, jwt:TOKEN or lambda:TOKEN.")
    var auth: String?

    @Option(help: "A JSON file with defaults (keys: httpUrl, auth).")
    var config: String?

    func run() async throws {
        let file = try ConfigFile.load(config)
        guard let text = url ?? file.httpUrl, let endpoint = URL(string: text), endpoint.scheme?.hasPrefix("http") == true else {
            throw ValidationError("--url must be the http(s) endpoint (or \"httpUrl\" in --config)")
        }
        guard let authText = auth ?? file.auth else { throw ValidationError("--auth is required (or \"auth\" in --config)") }
        guard !events.isEmpty else { throw ValidationError("give at least one --event") }
        let authorization = try AuthSpec(parsing: authText)
        let header: (name: String, value: String) =
            switch authorization {
            case .apiKey(let key): ("x-api-key", key)
            case .jwt(let token), .lambda(let token): ("Authorization", token)
            }
        let publisher = AppSyncHTTPPublisher(url: endpoint, authorization: { _ in [header] })
        let result: AppSyncPublishResult
        do {
            result = try await publisher.publish(events, to: channel)
        } catch let error as SwitchboardError {
            throw CLIError("\(error.code): \(error.message)")
        }
        var lines: [(Int, String)] = result.accepted.map { ($0.index, "ok \($0.identifier)") }
        lines += result.refused.map { ($0.index, "refused \($0.code): \($0.message)") }
        for (index, text) in lines.sorted(by: { $0.0 < $1.0 }) { Console.shared.out("\(index) \(text)") }
        if !result.allAccepted { throw CLIError("\(result.refused.count) of \(events.count) events were refused") }
    }
}
