import ArgumentParser
import Foundation
import Logging
import Switchboard
import SwitchboardEmulator

/// `switchboard demo`: the README's one-command tour.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the emulator in-process, run a BackendNotifier on it and show every typed event.",
        discussion: """
            Publishes a scenario covering all nine event types for a demo user, prints each typed \
            event as it arrives, then a summary (events per stream, latency p50/p99). Exits 0 when \
            every event arrived. The emulator serves development, tests and demos; production runs \
            against AWS AppSync Events.

            Examples:
              switchboard demo
              switchboard demo --transport graphql --events 90
              SWITCHBOARD_TRANSPORT=graphql switchboard demo --graphql-protocol graphql-transport-ws
            """)

    @OptionGroup var options: TransportOptions

    @Option(help: "How many events to publish (the nine types in turn).")
    var events = 18

    @Option(help: "Give up (exit non-zero) if not every event arrived after this many seconds.")
    var timeout: Double = 30

    func validate() throws {
        guard events >= 1 else { throw ValidationError("--events must be at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let file = try options.file()
        let selection = try options.selection()
        let wireProtocol = try options.wireProtocol(file)
        let policy = try options.reconnectPolicy(file)
        let console = Console.shared
        let apiKey = "demo-api-key"
        let scenario = DemoScenario(namespace: "vortex-app", userId: "demo-user", orgId: "demo-org")
        let emulatorConfiguration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [apiKey]), keepAliveInterval: .seconds(10),
            logger: Logger(label: "switchboard.emulator", factory: { _ in SwiftLogNoOpLogHandler() }))
        let count = events
        let timeout = timeout

        let report = try await withRunningEmulator(configuration: emulatorConfiguration) { emulator, endpoints in
            let url = selection.kind == .appsync ? endpoints.realtimeURL : endpoints.graphQLURL
            let transport = try TransportFactory.make(
                selection.kind,
                endpoint: .init(url: URL(string: url)!, httpURL: URL(string: endpoints.httpURL)),
                authorization: .apiKey(apiKey), wireProtocol: wireProtocol, reconnectPolicy: policy)
            let session = SessionSource(.signedIn(userId: scenario.userId, orgId: scenario.orgId) { _ in apiKey })
            let notifier = BackendNotifier(transport: transport, session: session)
            console.out("Switchboard demo: emulator on 127.0.0.1:\(endpoints.port), transport \(selection)")
            console.out("Publishing \(count) events for user \(scenario.userId) once the subscriptions are up.\n")

            let report = LockedValue(DemoReport())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await EventPump(notifier: notifier, streams: StreamName.perChannel).run { line in
                        let now = ContinuousClock.now
                        let complete = report.withLock { report -> Bool in
                            report.received(line.stream, at: now)
                            return report.isComplete && report.publishedCount == count
                        }
                        console.out(Self.format(line, terminal: console.isTerminal))
                        return !complete
                    }
                }
                group.addTask {
                    // Five subscriptions cover the nine streams on either transport.
                    while emulator.subscriptionCount < 5 { try await Task.sleep(for: .milliseconds(10)) }
                    for index in 0..<count {
                        let event = scenario.event(index, at: Date())
                        report.withLock { $0.published(event.stream, at: .now) }
                        _ = try emulator.publish(channel: event.channel, event: event.payload)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                    throw CLIError("timed out after \(timeout) s: \(report.withLock { $0.receivedCount }) of \(count) events arrived")
                }
                // The pump returns once every event arrived; the publisher returns before that.
                try await group.next()
                try await group.next()
                group.cancelAll()
            }
            return report.withLock { $0 }
        }
        console.out("")
        for line in report.summary() { console.out(line) }
        guard report.isComplete, report.unexpected == 0 else {
            throw CLIError("\(report.receivedCount) of \(report.publishedCount) events arrived")
        }
    }

    /// A typed event as the demo prints it: the stream name, then the event as JSON.
    static func format(_ line: EventLine, terminal: Bool) -> String {
        guard let json = try? line.json() else { return "\(line.stream.rawValue): <unencodable>" }
        guard terminal else { return json }
        let name = line.stream.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
        let event = (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["event"]
        let body = event.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .withoutEscapingSlashes]) }
            .map { String(decoding: $0, as: UTF8.self) } ?? json
        return "\u{1B}[1m\(name)\u{1B}[0m \(body)"
    }
}
