import SwitchboardCore
import SwitchboardTesting
import Testing
import URLSessionTaskBridge

@Suite("Transport conformance", .timeLimit(.minutes(1)))
struct TransportConformanceTests {
    typealias Check = TransportConformance.Check

    @Test("over the emulator", arguments: Flavor.allCases, Check.allCases)
    func overTheEmulator(_ flavor: Flavor, _ check: Check) async throws {
        try await EmulatorHarness.run(flavor) { harness in
            try await Self.run(TransportConformance(harness: harness), check, knownGap: Self.gap(flavor, check))
        }
    }

    @Test("over the emulator, through URLSessionWebSocketConnector's logic", arguments: Flavor.allCases, Check.allCases)
    func overTheEmulatorThroughURLSession(_ flavor: Flavor, _ check: Check) async throws {
        try await EmulatorHarness.run(flavor, engine: .urlSession) { harness in
            try await Self.run(TransportConformance(harness: harness), check, knownGap: Self.gap(flavor, check))
        }
    }

    @Test("over scripted connections", arguments: Flavor.allCases, Check.allCases)
    func overScriptedConnections(_ flavor: Flavor, _ check: Check) async throws {
        try await ScriptedServerHarness.run(flavor) { harness in
            try await Self.run(TransportConformance(harness: harness), check, knownGap: Self.gap(flavor, check))
        }
    }

    @Test("ScriptedTransport", arguments: TransportKind.builtIn, Check.allCases)
    func scriptedTransport(_ kind: TransportKind, _ check: Check) async throws {
        try await TransportConformance(harness: ScriptedTransportHarness(kind: kind)).run(check)
    }

    /// Where a transport falls short of the contract, and why: such a check must fail.
    static func gap(_ flavor: Flavor, _ check: Check) -> String? {
        // graphql-ws and graphql-transport-ws have no per-subscription acknowledgement; their
        // transport says so (acknowledgesSubscriptions is false), which the contract allows.
        nil
    }

    /// Runs `check`; with a known gap, the check must fail.
    static func run(_ suite: TransportConformance, _ check: Check, knownGap: String?) async throws {
        guard let knownGap else {
            try await suite.run(check)
            return
        }
        await withKnownIssue(Comment(rawValue: knownGap)) {
            try await suite.run(check)
        }
    }
}
