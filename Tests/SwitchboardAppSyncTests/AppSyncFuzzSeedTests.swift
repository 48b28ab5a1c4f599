import SwitchboardFuzzChecks
import Testing

@Suite("AppSync codec fuzz target")
struct AppSyncFuzzSeedTests {
    @Test("every seed frame fails as a protocol violation or round-trips through a written frame")
    func seeds() throws {
        let findings = try FuzzTarget.appSyncCodec.checkSeeds()
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }
}
