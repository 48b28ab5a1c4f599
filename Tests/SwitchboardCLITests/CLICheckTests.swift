import ArgumentParser
import Foundation
import Logging
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardTesting
import Testing

@testable import switchboard

@Suite("switchboard check", .timeLimit(.minutes(2)))
struct CLICheckTests {
    static func configuration(maximumSubscriptions: Int = 200) -> SwitchboardEmulator.Configuration {
        SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: ["k"]), maximumSubscriptionsPerConnection: maximumSubscriptions,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// Prepares `check` exactly as the command does, from its arguments.
    static func prepare(_ arguments: [String]) throws -> (Preflight, PreflightReport, TransportFactory.Setup) {
        try CheckCommand.parse(arguments).prepare()
    }

    /// Runs `check` in this process. Without a `--timeout` of its own, the deadlines are 60 s:
    /// these run on the real clock beside the whole suite, where a connect can take seconds.
    static func run(_ arguments: [String], adjust: (inout Preflight) -> Void = { _ in }) async throws -> PreflightReport {
        let arguments = arguments.contains("--timeout") ? arguments : arguments + ["--timeout", "60"]
        var (preflight, report, setup) = try prepare(arguments)
        adjust(&preflight)
        return try await preflight.run(into: report, connector: setup.connector) { try setup.make($0) }
    }

    @Test("every stream established on AppSync Events: connect time, connection_ack, the announced window, a ping")
    func allEstablishedAppSync() async throws {
        try await withRunningEmulator(configuration: Self.configuration()) { _, endpoints in
            let report = try await Self.run([
                "--transport", "appsync", "--url", endpoints.realtimeURL, "--auth", "api-key:k", "--user-id", "u1", "--org-id", "o1",
            ])
            #expect(report.exitCode == 0, "\(report.text)")
            #expect(report.streams.count == 11)
            #expect(report.streams.allSatisfy { $0.outcome == .established })
            #expect(report.streams.contains { $0.address == "vortex-app/user/u1/device/*" })
            #expect(report.connection.established && report.connection.acknowledged)
            #expect(report.connection.connectMilliseconds != nil)
            #expect(report.connection.announcedKeepAliveSeconds == 300)
            #expect(report.connection.pingMilliseconds != nil, "\(report.text)")
            #expect(report.connection.pingError == nil)
            #expect(report.selectedBy == "code")
        }
    }

    @Test("the legacy transport reports each stream at its root-field subscription", arguments: ["graphql-transport-ws", "graphql-ws", "appsync-graphql"])
    func allEstablishedGraphQL(dialect: String) async throws {
        try await withRunningEmulator(configuration: Self.configuration()) { _, endpoints in
            let report = try await Self.run([
                "--transport", "graphql", "--graphql-protocol", dialect, "--url", endpoints.graphQLURL, "--auth", "api-key:k",
                "--user-id", "u1", "--org-id", "o1",
            ])
            #expect(report.exitCode == 0, "\(report.text)")
            #expect(report.streams.count == 11)
            #expect(report.streams.first { $0.stream == "license" }?.address == "subscribeOrganizationState(orgId: o1)")
            // Only the AppSync GraphQL dialect acknowledges each subscription (start_ack) and
            // announces a keep-alive window (connectionTimeoutMs in the ack's payload).
            #expect(report.subscriptionsAcknowledged == (dialect == "appsync-graphql"))
            #expect(report.connection.announcedKeepAliveSeconds == (dialect == "appsync-graphql" ? 300 : nil))
            #expect(report.connection.pingMilliseconds != nil, "\(report.text)")
        }
    }

    @Test("subscriptions the server refuses are rejected with its message; the others stay established (exit 1)")
    func someRejected() async throws {
        try await withRunningEmulator(configuration: Self.configuration(maximumSubscriptions: 9)) { _, endpoints in
            let report = try await Self.run([
                "--transport", "appsync", "--url", endpoints.realtimeURL, "--auth", "api-key:k", "--user-id", "u1", "--org-id", "o1",
            ])
            #expect(report.exitCode == 1, "\(report.text)")
            #expect(report.count(.established) == 9)
            #expect(report.count(.rejected) == 2)
            #expect(report.streams.filter { $0.outcome == .rejected }.allSatisfy { $0.message?.contains("MaxSubscriptionsReached") == true },
                    "\(report.text)")
        }
    }

    @Test("a stream nobody answers is reported as no answer once the deadline passes on the clock; so is the ping")
    func noAnswer() async throws {
        try await withRunningEmulator(configuration: Self.configuration()) { emulator, endpoints in
            let clock = ManualClock()
            let checking = Task {
                try await Self.run([
                    "--transport", "appsync", "--url", endpoints.realtimeURL, "--auth", "api-key:k", "--user-id", "u1", "--org-id", "o1",
                    "--streams", "role,archive", "--timeout", "10", "--ping-timeout", "5",
                ]) { preflight in
                    preflight.clock = clock
                    // Connected and acknowledged; from now on the server answers nothing, pongs included.
                    preflight.afterConnect = { emulator.stallConnections(for: .seconds(600)) }
                }
            }
            // Both subscribes reached the server, and the check waits for their answers (the
            // connect phase's timer and the subscribe phase's are parked).
            while emulator.subscriptionCount < 2 { try await Task.sleep(for: .milliseconds(10)) }
            await clock.sleepers(atLeast: 2)
            clock.advance(by: .seconds(10))
            await clock.sleeper(dueBy: .init(offset: .seconds(15)))
            clock.advance(by: .seconds(5))
            let report = try await checking.value
            #expect(report.exitCode == 1, "\(report.text)")
            #expect(report.streams.map(\.outcome) == [.noAnswer, .noAnswer], "\(report.text)")
            #expect(report.streams.allSatisfy { $0.message == "no answer within 10 s" })
            #expect(report.connection.pingError?.contains("no pong within 5 s") == true, "\(report.text)")
            #expect(report.connection.established)
        }
    }

    @Test("check --json: one document, exit 0; a refused key exits 2; a rejected channel exits 1 with the server's words")
    func commandLine() async throws {
        try await withRunningEmulator(configuration: Self.configuration()) { _, endpoints in
            let config = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: config) }
            try Data(#"{"transport": "appsync", "url": "\#(endpoints.realtimeURL)", "userId": "u1", "orgId": "o1"}"#.utf8)
                .write(to: config)

            // A generous --timeout: a debug build beside the rest of the suite can take seconds to
            // connect, and this test is about the output, not the deadline (tested above).
            let slack = ["--timeout", "60"]
            let clean = await (try await CLIProcess(["check", "--config", config.path, "--auth", "api-key:k", "--json"] + slack)).finish()
            #expect(clean.status == 0, "stderr: \(clean.err)")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(clean.out.joined(separator: "\n").utf8)) as? [String: Any])
            #expect(document["exitCode"] as? Int == 0)
            #expect(document["selectedBy"] as? String == "config file \(config.path)")
            #expect((document["streams"] as? [[String: Any]])?.count == 11)
            #expect((document["connection"] as? [String: Any])?["announcedKeepAliveSeconds"] as? Double == 300)

            let refused = await (try await CLIProcess(["check", "--config", config.path, "--auth", "api-key:wrong"] + slack)).finish()
            #expect(refused.status == 2, "stdout: \(refused.out) stderr: \(refused.err)")
            #expect(refused.out.contains { $0.contains("connection failed: sessionExpired") }, "\(refused.out)")
            #expect(!(refused.out + [refused.err]).joined().contains("wrong"), "the key is never printed")

            let rejected = await (try await CLIProcess([
                "check", "--config", config.path, "--auth", "api-key:k", "--namespace", "other-app",
            ] + slack)).finish()
            #expect(rejected.status == 1, "stdout: \(rejected.out) stderr: \(rejected.err)")
            #expect(rejected.out.contains { $0.contains("rejected") && $0.contains("Unauthorized") }, "\(rejected.out)")
            #expect(rejected.out.last == "result: 0 of 11 streams established, 11 rejected")

            let broken = await (try await CLIProcess(["check", "--url", endpoints.realtimeURL, "--auth", "api-key:k", "--json"])).finish()
            #expect(broken.status == 2)
            #expect(broken.err.contains("--user-id and --org-id are required"), "\(broken.err)")
        }
    }

    @Test("check names an unreachable server and exits 2")
    func unreachable() async throws {
        let port = try await withRunningEmulator(configuration: Self.configuration()) { _, endpoints in endpoints.port }
        let result = await (try await CLIProcess([
            "check", "--url", "ws://127.0.0.1:\(port)/event/realtime", "--auth", "api-key:k", "--user-id", "u1", "--org-id", "o1",
        ])).finish()
        #expect(result.status == 2)
        #expect(result.out.contains { $0.contains("connection refused") }, "\(result.out)")
    }
}
