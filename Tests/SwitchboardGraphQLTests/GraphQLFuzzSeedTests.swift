import SwitchboardFuzzChecks
import Testing

@Suite("GraphQL codec fuzz target")
struct GraphQLFuzzSeedTests {
    @Test("every seed frame, in its dialect, fails to decode or round-trips through a written frame")
    func seeds() throws {
        let findings = try FuzzTarget.graphQLCodec.checkSeeds()
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }
}
