import Foundation
import Testing

/// `switchboard replay` and `switchboard parity` over the fixtures the migration suite commits.
@Suite("switchboard replay and parity", .timeLimit(.minutes(1)))
struct CLIReplayTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("MigrationTests/Fixtures")

    func fixture(_ scenario: String, _ dialect: String) -> String {
        Self.fixtures.appendingPathComponent(scenario).appendingPathComponent("\(dialect).jsonl").path
    }

    @Test("replay prints every typed value, the errors, the states, and exits 0 when the client behaves as recorded")
    func replay() async throws {
        let result = await (try await CLIProcess(["replay", fixture("reconnect-mid-stream", "graphql-transport-ws")])).finish()
        #expect(result.status == 0, "stdout: \(result.out) stderr: \(result.err)")
        #expect(result.out.first?.hasSuffix("reconnect-mid-stream on graphql-transport-ws, 20 lines, 2 connection(s)") == true, "\(result.out)")
        let roles = result.out.filter { $0.hasSuffix(#""stream":"role"}"#) }
        #expect(roles == [#"{"event":{"reason":"before"},"stream":"role"}"#, #"{"event":{"reason":"after"},"stream":"role"}"#])
        #expect(result.out.contains("values: devicePresence 2, role 2, device 2"), "\(result.out)")
        #expect(result.out.contains("errors: network, network"), "\(result.out)")
        #expect(result.out.contains { $0.hasPrefix("states: idle → connecting(attempt: 1) → connected → waitingToReconnect") })
        #expect(result.out.last == "replay: 20 lines played, 2 connect(s), the client behaved as recorded")
    }

    @Test("replay exits 1 and names the first difference when the client parts from the recording")
    func replayMismatch() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The recording says the client subscribed to an operation it never sends.
        let text = try String(contentsOfFile: fixture("all-event-types", "graphql-ws"), encoding: .utf8)
            .replacingOccurrences(of: "SubscribeRoleChange", with: "SubscribeRoleChanges")
        let edited = directory.appendingPathComponent("edited.jsonl")
        try Data(text.utf8).write(to: edited)
        let result = await (try await CLIProcess(["replay", edited.path])).finish()
        #expect(result.status == 1, "stdout: \(result.out) stderr: \(result.err)")
        #expect(result.out.contains { $0.hasPrefix("mismatch: connection 1: expected ") && $0.contains("SubscribeRoleChanges") }, "\(result.out)")
    }

    @Test("replay exits 2 on a file it cannot read")
    func replayUnreadable() async throws {
        let result = await (try await CLIProcess(["replay", "/nonexistent/fixture.jsonl"])).finish()
        #expect(result.status == 2)
        #expect(result.err.contains("cannot read the fixture /nonexistent/fixture.jsonl"))
    }

    @Test("parity: the same scenario on both transports exits 0", arguments: ["graphql-ws", "graphql-transport-ws", "appsync-graphql"])
    func paritySame(dialect: String) async throws {
        let result = await (try await CLIProcess([
            "parity", "--graphql", fixture("rejected-subscription", dialect), "--appsync", fixture("rejected-subscription", "appsync"),
        ])).finish()
        #expect(result.status == 0, "stdout: \(result.out) stderr: \(result.err)")
        #expect(result.out.last == "parity: consumers see the same value streams, error codes and connection states on both transports")
    }

    @Test("parity: different scenarios exit 1 with one line per stream that differs")
    func parityDifferent() async throws {
        let result = await (try await CLIProcess([
            "parity", "--graphql", fixture("reconnect-mid-stream", "graphql-ws"), "--appsync", fixture("keepalive-timeout", "appsync"),
        ])).finish()
        #expect(result.status == 1, "stdout: \(result.out) stderr: \(result.err)")
        #expect(result.out.contains { $0.hasPrefix("differs: roleValues: 2 values ≠ 2 values") || $0.hasPrefix("differs: devicePresenceValues: 0 values ≠ 2 values") },
                "\(result.out)")
        // A keep-alive timeout reaches consumers as `network`, as a dropped socket does: the error codes agree.
        #expect(!result.out.contains { $0.hasPrefix("differs: errors") }, "\(result.out)")
        #expect(result.out.last?.hasPrefix("parity: ") == true && result.out.last?.hasSuffix("(AppSync Events ≠ legacy)") == true, "\(result.out)")

        let valuesOnly = await (try await CLIProcess([
            "parity", "--values-only", "--graphql", fixture("reconnect-mid-stream", "graphql-ws"),
            "--appsync", fixture("keepalive-timeout", "appsync"),
        ])).finish()
        #expect(valuesOnly.status == 1)
        #expect(!valuesOnly.out.contains { $0.hasPrefix("differs: errors") }, "\(valuesOnly.out)")

        let errors = await (try await CLIProcess([
            "parity", "--graphql", fixture("reconnect-mid-stream", "graphql-ws"),
            "--appsync", fixture("rejected-subscription", "appsync"),
        ])).finish()
        #expect(errors.status == 1)
        #expect(errors.out.contains("differs: errors[0]: subscriptionRejected ≠ network"), "\(errors.out)")
    }

    @Test("parity refuses a fixture given for the wrong transport")
    func parityWrongSide() async throws {
        let result = await (try await CLIProcess([
            "parity", "--graphql", fixture("auth-failure", "appsync"), "--appsync", fixture("auth-failure", "appsync"),
        ])).finish()
        #expect(result.status != 0)
        #expect(result.err.contains("was recorded on appsync, not on graphql"), "\(result.err)")
    }
}
