import Foundation
import Testing

@Suite("ws:// only to loopback", .timeLimit(.minutes(1)))
struct CLIPlaintextTests {
    @Test("listen refuses plaintext ws to a remote host at once, on both transports, and says why", arguments: ["appsync", "graphql"])
    func refused(transport: String) async throws {
        let result = await (try await CLIProcess([
            "listen", "--transport", transport, "--url", "ws://events.example.com/event/realtime", "--auth", "api-key:k",
            "--user-id", "u", "--org-id", "o", "--count", "1", "--timeout", "30",
        ])).finish()
        #expect(result.status != 0)
        #expect(result.out.isEmpty, "no events: \(result.out)")
        #expect(result.err.contains("connection: disconnected(invalidConfiguration)"), "\(result.err)")
        #expect(!result.err.contains("connection: waitingToReconnect"), "a refused URL is not retried")
        #expect(result.err.contains("ws://events.example.com is not loopback: use wss"), "\(result.err)")
    }
}
