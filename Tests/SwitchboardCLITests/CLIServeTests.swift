import Foundation
import Testing

@Suite("switchboard serve and argument errors", .timeLimit(.minutes(1)))
struct CLIServeTests {
    @Test("serve prints its URLs and stops cleanly on SIGINT")
    func serve() async throws {
        let cli = try CLIProcess(["serve", "--api-key", "k", "--port", "0"])
        let lines = await cli.lines(atLeast: 7)
        #expect(lines.first?.hasPrefix("Switchboard emulator on 127.0.0.1:") == true)
        #expect(lines.contains { $0.contains("ws://127.0.0.1:") && $0.contains("/event/realtime") })
        #expect(lines.contains { $0.contains("/graphql") })
        kill(cli.process.processIdentifier, SIGINT)
        let result = await cli.finish()
        #expect(result.status == 0, "stderr: \(result.err)")
    }

    @Test("bad arguments exit non-zero with a message naming the problem", arguments: [
        (["serve"], "api-key"),
        (["listen", "--url", "ws://127.0.0.1:1/", "--auth", "basic:x", "--user-id", "u", "--org-id", "o"], "--auth mode 'basic'"),
        (["listen", "--transport", "apsync", "--url", "ws://127.0.0.1:1/", "--auth", "jwt:t", "--user-id", "u", "--org-id", "o"], "apsync"),
        (["listen", "--url", "ws://127.0.0.1:1/", "--auth", "jwt:t", "--user-id", "u", "--org-id", "o", "--streams", "nope"], "unknown stream 'nope'"),
        (["demo", "--events", "0"], "--events"),
    ])
    func badArguments(arguments: [String], message: String) async throws {
        let result = await (try CLIProcess(arguments)).finish()
        #expect(result.status != 0)
        #expect(result.err.contains(message), "stderr: \(result.err)")
    }
}
