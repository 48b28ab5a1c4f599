import ArgumentParser
import Foundation
import Logging
import SwitchboardCore
import SwitchboardEmulator

/// `switchboard serve`: runs the local emulator until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the local emulator (AppSync Events and legacy GraphQL) until interrupted.",
        discussion: """
            The emulator binds 127.0.0.1 only. It serves development, tests and demos; production \
            runs against AWS AppSync Events (and, until the migration ends, the legacy GraphQL backend).

            Faults can be injected at runtime with POST requests to the control URL it prints \
            (drop, abort, stall, garbage, reject-auth, latency, drop-events, reset; see `switchboard fault`); \
            GET /control/status counts connections and subscriptions.

            Publishing: POST /event is the service's HTTP publish ({"channel", "events"}: one \
            channel, 1-5 events, each a JSON value serialized to a string). POST /events is the \
            emulator's own batch route, which the service does not have: a JSON array of \
            {"channel", "event"} objects (up to 1000, any channels) published in array order in one \
            request, answered {"published": n}; the whole batch is checked first, and a bad item \
            refuses all of it with 400 and a message naming it (events[3]: event is not valid JSON). \
            Both take the same x-api-key or Authorization header.

            Examples:
              switchboard serve --port 8080 --api-key dev-key
              switchboard serve --jwt-secret s3cret --ka-interval 5 --record frames.jsonl
              switchboard serve --latency-ms 200 --reject-auth 2
              switchboard serve --api-key dev-key --drop-events graphql   # then: switchboard shadow … shows the divergence
              switchboard serve --api-key dev-key --tls --cert-out emulator.pem   # then: listen --ca-file emulator.pem
            """)

    @Option(help: "The port to bind on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @Option(name: .customLong("api-key"), help: "An API key the emulator accepts (repeatable).")
    var apiKeys: [String] = []

    @Option(name: .customLong("jwt-secret"), help: "Accept HS256 JWTs signed with this secret; `sub` is the user id.")
    var jwtSecret: String?

    @Option(name: .customLong("ka-interval"), help: "Seconds between keep-alive messages.")
    var keepAliveInterval: Double = 60

    @Option(name: .customLong("record"), help: "Record every frame to this JSON Lines file.")
    var recordPath: String?

    @Option(name: .customLong("latency-ms"), help: "Fault: delay every outgoing frame by this many milliseconds.")
    var latencyMilliseconds: Int?

    @Option(name: .customLong("reject-auth"), help: "Fault: reject the next N connection attempts as unauthorized.")
    var rejectAuth: Int?

    @Option(name: .customLong("drop-events"), help: "Fault: drop every event on its way to this protocol's subscriptions (graphql or appsync).")
    var dropEvents: String?

    @Option(name: .customLong("connection-timeout-ms"), help: "The connectionTimeoutMs advertised in connection_ack (default 300000).")
    var connectionTimeoutMs: Int?

    @Option(name: .customLong("event-log-capacity"), help: "The most events the sync endpoints' event log keeps (default 100000).")
    var eventLogCapacity: Int?

    @Option(name: .customLong("connection-init-timeout"), help: "Seconds a graphql-transport-ws client has for connection_init (default 3).")
    var connectionInitTimeout: Double?

    @Option(name: .customLong("clock-offset"), help: "Seconds the emulator's wall clock runs ahead of this machine's (negative, behind, takes '=': --clock-offset=-5): publishedAt, checkpoints and serverTime move with it. Default 0.")
    var clockOffset: Double = 0

    @Flag(name: .customLong("no-server-time"), help: "Leave serverTime out of the sync answers, as a backend that predates it.")
    var noServerTime = false

    @Flag(name: .customLong("exit-when-stdin-closes"), help: "Stop when standard input closes (a parent that runs the emulator, such as `switchboard soak`, dies with it).")
    var exitWhenStdinCloses = false

    @Flag(help: "Serve wss/https with a self-signed certificate for localhost and 127.0.0.1, made at start.")
    var tls = false

    @Option(name: .customLong("cert-out"), help: "With --tls: write the certificate (PEM, no key) to this file for clients to trust.")
    var certOut: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard keepAliveInterval > 0 else { throw ValidationError("--ka-interval must be positive") }
        if let latencyMilliseconds, latencyMilliseconds < 0 { throw ValidationError("--latency-ms must not be negative") }
        if let rejectAuth, rejectAuth < 1 { throw ValidationError("--reject-auth must be at least 1") }
        if let dropEvents, !TransportKind.builtIn.contains(where: { $0.rawValue == dropEvents }) {
            throw ValidationError("--drop-events must be graphql or appsync")
        }
        if let connectionTimeoutMs, connectionTimeoutMs < 1 { throw ValidationError("--connection-timeout-ms must be at least 1") }
        if let eventLogCapacity, eventLogCapacity < 1 { throw ValidationError("--event-log-capacity must be at least 1") }
        if let connectionInitTimeout, !(connectionInitTimeout > 0) { throw ValidationError("--connection-init-timeout must be positive") }
        if certOut != nil && !tls { throw ValidationError("--cert-out needs --tls") }
        guard clockOffset.isFinite, abs(clockOffset) <= 10 * 365 * 86_400 else {
            throw ValidationError("--clock-offset is seconds, at most ten years either way")
        }
        if apiKeys.isEmpty && jwtSecret == nil {
            throw ValidationError("give at least one --api-key or a --jwt-secret, so clients can authorize")
        }
    }

    func run() async throws {
        var configuration = SwitchboardEmulator.Configuration(
            port: port,
            auth: .init(apiKeys: Set(apiKeys), jwtSecret: jwtSecret.map { Array($0.utf8) }),
            keepAliveInterval: .milliseconds(Int64(keepAliveInterval * 1000)),
            connectionTimeoutMs: connectionTimeoutMs ?? 300_000,
            recordingPath: recordPath,
            logger: Logger(label: "switchboard.emulator", factory: { _ in SwiftLogNoOpLogHandler() }))
        configuration.tls = tls
        if let eventLogCapacity { configuration.eventLogCapacity = eventLogCapacity }
        configuration.clockOffset = .milliseconds(Int64((clockOffset * 1000).rounded()))
        configuration.sendsServerTime = !noServerTime
        if let connectionInitTimeout { configuration.graphQLConnectionInitTimeout = .milliseconds(Int64(connectionInitTimeout * 1000)) }
        let emulator = SwitchboardEmulator(configuration: configuration)
        let certOut = certOut
        let console = Console.shared
        let faults = (latencyMilliseconds, rejectAuth, dropEvents.flatMap(TransportKind.init(rawValue:)))
        try await withSignalCancellation(orEndOfInput: exitWhenStdinCloses) {
            try await emulator.run { endpoints in
                if let latency = faults.0 { emulator.setFrameLatency(.milliseconds(latency)) }
                if let count = faults.1 { emulator.rejectAuthentication(nextConnections: count) }
                if let kind = faults.2 { emulator.dropEvents(to: kind) }
                console.out("Switchboard emulator on 127.0.0.1:\(endpoints.port)")
                console.out("  AppSync Events realtime  \(endpoints.realtimeURL)")
                console.out("  AppSync Events HTTP      \(endpoints.httpURL)")
                console.out("  batch publish            \(endpoints.batchPublishURL)")
                console.out("  legacy GraphQL           \(endpoints.graphQLURL)")
                console.out("  server-sent events       \(endpoints.serverSentEventsURL)")
                console.out("  fault control            \(endpoints.controlURL)")
                console.out("  auth host                \(endpoints.host)")
                if let pem = endpoints.certificatePEM {
                    if let certOut {
                        do {
                            try pem.write(toFile: certOut, atomically: true, encoding: .utf8)
                            console.out("  certificate (PEM)        \(certOut)")
                        } catch {
                            console.err("error: the certificate cannot be written to \(certOut): \(error.localizedDescription)")
                        }
                    } else {
                        console.out("  certificate (PEM):\n\(pem)")
                    }
                }
                console.out("Press Ctrl-C to stop.")
            }
        }
    }
}
