import SwitchboardAppSync
import SwitchboardFuzzChecks
import Testing

@Suite("AppSync codec fuzz target")
struct AppSyncFuzzSeedTests {
    @Test("every seed frame fails as a protocol violation or round-trips through a written frame")
    func seeds() throws {
        let findings = try FuzzTarget.appSyncCodec.checkSeeds()
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    /// Found by `Scripts/fuzz.sh`: the text decoded exactly, but the number written back came
    /// through a `Double` and decoded to -7550956291059996672.
    @Test("connectionTimeoutMs beyond 2^53, zero or negative is ignored")
    func timeoutOutOfRange() throws {
        let found = #"{"connectionTimeoutMs":"-07550956291059996060","type":"connection_ack"}"#
        #expect(throws: Never.self) { try FuzzTarget.appSyncCodec.check(Array(found.utf8)) }
        #expect(try AppSyncCodec.decode(found) == .connectionAck(connectionTimeoutMs: nil))
        #expect(try AppSyncCodec.decode(#"{"type":"connection_ack","connectionTimeoutMs":9007199254740993}"#)
            == .connectionAck(connectionTimeoutMs: nil))
        #expect(try AppSyncCodec.decode(#"{"type":"connection_ack","connectionTimeoutMs":0}"#) == .connectionAck(connectionTimeoutMs: nil))
        #expect(try AppSyncCodec.decode(#"{"type":"connection_ack","connectionTimeoutMs":-5}"#) == .connectionAck(connectionTimeoutMs: nil))
    }
}
