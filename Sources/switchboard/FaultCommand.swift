import ArgumentParser
import Foundation
import SwitchboardAppSync
import SwitchboardCore

/// `switchboard fault`: injects a fault into a running emulator through its control endpoints.
struct FaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault",
        abstract: "Inject a fault into a running emulator (switchboard serve) and print how many connections it hit.",
        discussion: """
            Faults: drop (close every connection with --code and --reason), abort (cut TCP with \
            no close frame), stall (send nothing, not even keep-alives, for --ms), garbage (send a \
            non-JSON frame), reject-auth (refuse the next --count connections; without it, until \
            reset), latency (delay every frame by --ms; 0 removes it), drop-events (drop one of \
            every --every events, default all, on their way to --transport's subscriptions: what \
            `switchboard shadow` reports as divergence on that side; --every 0 stops), reset.

            Examples:
              switchboard fault drop --control-url http://127.0.0.1:8080/control --code 1011
              switchboard fault stall --control-url http://127.0.0.1:8080/control --ms 400000
              switchboard fault reject-auth --control-url http://127.0.0.1:8080/control --count 2
              switchboard fault drop-events --control-url http://127.0.0.1:8080/control --transport graphql --every 4
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case drop, abort, stall, garbage, rejectAuth = "reject-auth", latency, dropEvents = "drop-events", reset
    }

    @Argument(help: "drop, abort, stall, garbage, reject-auth, latency, drop-events or reset.")
    var kind: Kind

    @Option(name: .customLong("control-url"), help: "The emulator's control URL, as `serve` prints it.")
    var controlURL: String

    @Option(help: "drop: the close code (default 1001).")
    var code: UInt16?

    @Option(help: "drop: the close reason.")
    var reason: String?

    @Option(help: "stall and latency: milliseconds.")
    var ms: Int?

    @Option(help: "reject-auth: how many connection attempts to refuse.")
    var count: Int?

    @Option(name: .customLong("ca-file"), help: "Trust the PEM certificates in this file (the control URL of `serve --tls`).")
    var caFile: String?

    @Option(help: "drop-events: the protocol whose subscriptions lose events (graphql or appsync).")
    var transport: String?

    @Option(help: "drop-events: drop one of every N events (default 1: all; 0 stops dropping).")
    var every: Int?

    func validate() throws {
        guard let url = URL(string: controlURL), url.scheme?.hasPrefix("http") == true else {
            throw ValidationError("--control-url must be the emulator's http(s)://…/control URL")
        }
        if (kind == .stall || kind == .latency), ms == nil { throw ValidationError("\(kind.rawValue) needs --ms") }
        if let ms, ms < 0 { throw ValidationError("--ms must not be negative") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if kind == .dropEvents, transport.flatMap(TransportKind.init(rawValue:)) == nil {
            throw ValidationError("drop-events needs --transport graphql or --transport appsync")
        }
        if let every, every < 0 { throw ValidationError("--every must not be negative") }
    }

    func run() async throws {
        var components = URLComponents(string: controlURL.hasSuffix("/") ? controlURL + kind.rawValue : controlURL + "/" + kind.rawValue)
        var query: [URLQueryItem] = []
        if let code { query.append(URLQueryItem(name: "code", value: String(code))) }
        if let reason { query.append(URLQueryItem(name: "reason", value: reason)) }
        if let ms { query.append(URLQueryItem(name: "ms", value: String(ms))) }
        if let count { query.append(URLQueryItem(name: "count", value: String(count))) }
        if kind == .dropEvents, let transport { query.append(URLQueryItem(name: "transport", value: transport)) }
        if let every { query.append(URLQueryItem(name: "every", value: String(every))) }
        components?.queryItems = query.isEmpty ? nil : query
        guard let url = components?.url else { throw ValidationError("--control-url cannot be combined with \(kind.rawValue)") }
        let response: (status: Int, body: Data)
        do {
            response = try await TrustingHTTPClient(caFile: caFile).post(url, headers: [], body: Data())
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CLIError("the emulator at \(controlURL) did not answer: \(FailureText.describe(error))")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        guard (200..<300).contains(response.status) else { throw CLIError("the emulator refused \(kind.rawValue): HTTP \(response.status) \(text)") }
        let affected = ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["connections"] as? Int
        Console.shared.out(affected.map { "\(kind.rawValue): \($0) connection(s)" } ?? "\(kind.rawValue): done")
    }
}
