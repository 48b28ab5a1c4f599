import ArgumentParser
import Foundation
import SwitchboardAppSync

/// `switchboard fault`: injects a fault into a running emulator through its control endpoints.
struct FaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault",
        abstract: "Inject a fault into a running emulator (switchboard serve) and print how many connections it hit.",
        discussion: """
            Faults: drop (close every connection with --code and --reason), abort (cut TCP with \
            no close frame), stall (send nothing, not even keep-alives, for --ms), garbage (send a \
            non-JSON frame), reject-auth (refuse the next --count connections; without it, until \
            reset), latency (delay every frame by --ms; 0 removes it), reset.

            Examples:
              switchboard fault drop --control-url http://127.0.0.1:8080/control --code 1011
              switchboard fault stall --control-url http://127.0.0.1:8080/control --ms 400000
              switchboard fault reject-auth --control-url http://127.0.0.1:8080/control --count 2
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case drop, abort, stall, garbage, rejectAuth = "reject-auth", latency, reset
    }

    @Argument(help: "drop, abort, stall, garbage, reject-auth, latency or reset.")
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

    func validate() throws {
        guard let url = URL(string: controlURL), url.scheme?.hasPrefix("http") == true else {
            throw ValidationError("--control-url must be the emulator's http(s)://…/control URL")
        }
        if (kind == .stall || kind == .latency), ms == nil { throw ValidationError("\(kind.rawValue) needs --ms") }
        if let ms, ms < 0 { throw ValidationError("--ms must not be negative") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() async throws {
        var components = URLComponents(string: controlURL.hasSuffix("/") ? controlURL + kind.rawValue : controlURL + "/" + kind.rawValue)
        var query: [URLQueryItem] = []
        if let code { query.append(URLQueryItem(name: "code", value: String(code))) }
        if let reason { query.append(URLQueryItem(name: "reason", value: reason)) }
        if let ms { query.append(URLQueryItem(name: "ms", value: String(ms))) }
        if let count { query.append(URLQueryItem(name: "count", value: String(count))) }
        components?.queryItems = query.isEmpty ? nil : query
        guard let url = components?.url else { throw ValidationError("--control-url cannot be combined with \(kind.rawValue)") }
        let response: (status: Int, body: Data)
        do {
            response = try await URLSessionHTTPClient().post(url, headers: [], body: Data())
        } catch {
            throw CLIError("the emulator at \(controlURL) did not answer: \(error.localizedDescription)")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        guard (200..<300).contains(response.status) else { throw CLIError("the emulator refused \(kind.rawValue): HTTP \(response.status) \(text)") }
        let affected = ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["connections"] as? Int
        Console.shared.out(affected.map { "\(kind.rawValue): \($0) connection(s)" } ?? "\(kind.rawValue): done")
    }
}
