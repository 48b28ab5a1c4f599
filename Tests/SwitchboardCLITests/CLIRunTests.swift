import Foundation
import Logging
import SwitchboardEmulator
import Testing

@Suite("switchboard demo and listen", .timeLimit(.minutes(1)))
struct CLIRunTests {
    @Test("demo runs the nine event types over AppSync Events and exits 0 with a summary")
    func demo() async throws {
        let result = await (try await CLIProcess(["demo", "--events", "9"])).finish()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains("total: 9 of 9 events received"), "\(result.out)")
        #expect(result.out.contains { $0.hasPrefix("latency publish → consumer: p50 ") })
        // Piped output: one JSON line per event.
        let events = result.out.filter { $0.hasPrefix("{") }
        #expect(events.count == 9)
        #expect(Set(events.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["stream"] as? String
        }).count == 9)
    }

    @Test("demo runs over the legacy transport too", arguments: ["graphql-ws", "graphql-transport-ws"])
    func demoGraphQL(dialect: String) async throws {
        let result = await (try await CLIProcess(["demo", "--transport", "graphql", "--graphql-protocol", dialect, "--events", "9"])).finish()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.out.contains("total: 9 of 9 events received"), "\(result.out)")
    }

    @Test("listen prints one JSON line per typed event and exits 0 after --count")
    func listen() async throws {
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: ["cli-key"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let cli = try await CLIProcess([
                "listen", "--transport", "appsync", "--url", endpoints.realtimeURL, "--auth", "api-key:cli-key",
                "--user-id", "u1", "--org-id", "o1", "--streams", "role,devicePresence", "--count", "2", "--timeout", "20",
            ])
            while emulator.subscriptionCount < 2 { try await Task.sleep(for: .milliseconds(10)) }
            _ = try emulator.publish(
                channel: "vortex-app/user/u1/roleChanged",
                event: #"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"promoted"}"#)
            _ = try emulator.publish(
                channel: "vortex-app/user/u1/device/presenceChanged",
                event: #"{"eventType":"device/presenceChanged","timestamp":"2026-11-22T10:00:00.000Z","siteId":"s1","thingName":"cam","online":true}"#)
            let result = await cli.finish()
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(result.out.count == 2)
            #expect(result.out.contains { $0.contains(#""stream":"role""#) && $0.contains(#""reason":"promoted""#) })
            #expect(result.out.contains { $0.contains(#""stream":"devicePresence""#) && $0.contains(#""siteId":"s1""#) })
            #expect(result.err.contains("connection: connected"))
            #expect(!result.err.contains("cli-key"), "the key is never printed")
        }
    }

    @Test("listen exits non-zero when the credentials are refused")
    func listenRefused() async throws {
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: ["cli-key"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withRunningEmulator(configuration: configuration) { _, endpoints in
            let result = await (try await CLIProcess([
                "listen", "--url", endpoints.realtimeURL, "--auth", "api-key:wrong-key", "--user-id", "u1", "--org-id", "o1",
                "--timeout", "20",
            ])).finish()
            #expect(result.status != 0)
            #expect(result.err.contains("sessionExpired"), "stderr: \(result.err)")
        }
    }
}
