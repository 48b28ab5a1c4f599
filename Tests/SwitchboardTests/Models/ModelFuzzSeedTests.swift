import SwitchboardFuzzChecks
import Testing

@Suite("Model decoding fuzz target")
struct ModelFuzzSeedTests {
    @Test("every seed payload decodes as each catalog model, AppSync and legacy, or fails as decodingFailed; decoded values round-trip")
    func seeds() throws {
        let findings = try FuzzTarget.models.checkSeeds()
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }
}
