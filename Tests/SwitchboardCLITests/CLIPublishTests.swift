import Foundation
import Logging
import SwitchboardEmulator
import Testing

@Suite("switchboard publish", .timeLimit(.minutes(1)))
struct CLIPublishTests {
    static let configuration = SwitchboardEmulator.Configuration(
        port: 0, auth: .init(apiKeys: ["cli-key"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

    @Test("publishes over HTTP and prints each event's result; refusals exit non-zero")
    func publish() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { _, endpoints in
            let ok = await (try await CLIProcess([
                "publish", "--url", endpoints.httpURL, "--auth", "api-key:cli-key",
                "--channel", "vortex-app/user/u1/roleChanged",
                "--event", #"{"eventType":"user/roleChanged","reason":"a"}"#,
                "--event", #"{"eventType":"user/roleChanged","reason":"b"}"#,
            ])).finish()
            #expect(ok.status == 0, "stderr: \(ok.err)")
            #expect(ok.out.count == 2)
            #expect(ok.out.first?.hasPrefix("0 ok ") == true)
            #expect(ok.out.last?.hasPrefix("1 ok ") == true)

            let badKey = await (try await CLIProcess([
                "publish", "--url", endpoints.httpURL, "--auth", "api-key:wrong",
                "--channel", "vortex-app/user/u1/roleChanged", "--event", #"{"a":1}"#,
            ])).finish()
            #expect(badKey.status != 0)
            #expect(badKey.err.contains("sessionExpired"), "stderr: \(badKey.err)")
            #expect(!badKey.err.contains("wrong"), "the key is never printed")

            let wildcard = await (try await CLIProcess([
                "publish", "--url", endpoints.httpURL, "--auth", "api-key:cli-key",
                "--channel", "vortex-app/user/*", "--event", #"{"a":1}"#,
            ])).finish()
            #expect(wildcard.status != 0)
            #expect(wildcard.err.contains("invalidChannel"), "stderr: \(wildcard.err)")
        }
    }

    @Test("--ws publishes over the real-time socket, six events in two messages; a bad key fails clearly")
    func publishOverSocket() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { _, endpoints in
            let events = (0..<6).flatMap { ["--event", #"{"eventType":"user/roleChanged","reason":"r\#($0)"}"#] }
            let ok = await (try await CLIProcess([
                "publish", "--ws", "--url", endpoints.realtimeURL, "--auth", "api-key:cli-key",
                "--channel", "vortex-app/user/u1/roleChanged",
            ] + events)).finish()
            #expect(ok.status == 0, "stderr: \(ok.err)")
            #expect(ok.out.map { $0.prefix(5) } == ["0 ok ", "1 ok ", "2 ok ", "3 ok ", "4 ok ", "5 ok "])

            let badKey = await (try await CLIProcess([
                "publish", "--ws", "--url", endpoints.realtimeURL, "--auth", "api-key:wrong",
                "--channel", "vortex-app/user/u1/roleChanged", "--event", #"{"a":1}"#,
            ])).finish()
            #expect(badKey.status != 0)
            #expect(badKey.err.contains("sessionExpired"), "stderr: \(badKey.err)")
            #expect(!badKey.err.contains("wrong"), "the key is never printed")

            let httpURL = await (try await CLIProcess([
                "publish", "--ws", "--url", endpoints.httpURL, "--auth", "api-key:cli-key",
                "--channel", "vortex-app/user/u1/roleChanged", "--event", #"{"a":1}"#,
            ])).finish()
            #expect(httpURL.status != 0)
            #expect(httpURL.err.contains("ws(s)://"), "stderr: \(httpURL.err)")
        }
    }
}
