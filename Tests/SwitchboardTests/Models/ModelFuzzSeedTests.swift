import Foundation
import SwitchboardCore
import SwitchboardFuzzChecks
import Testing

@Suite("Model decoding fuzz target")
struct ModelFuzzSeedTests {
    @Test("every seed payload decodes as each catalog model, AppSync and legacy, or fails as decodingFailed; decoded values round-trip")
    func seeds() throws {
        let findings = try FuzzTarget.models.checkSeeds()
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    /// Found by `Scripts/fuzz.sh`: after 2262 the nine-digit format overflowed Int64, so a model
    /// with a sub-microsecond timestamp decoded but failed to encode ("outside the years 0000...9999").
    @Test("a timestamp after 2262 with a long fraction formats and survives a round trip")
    func farFutureFraction() throws {
        let timestamp = "9439-11-22T10:00:00.00888888888888888888888888888888888888888888888888888888888888888888888888888888888888888888888888888880Z"
        let found = Array(#"{"eventType":"device/recordingStateChanged","timestamp":""#.utf8) + Array(timestamp.utf8)
            + Array(#"","orgId":"org-1","siteId":""#.utf8) + [0x96] + Array(#"ite-1","thingrding":true}"#.utf8)
        #expect(throws: Never.self) { try FuzzTarget.models.check(found) }
        let date = try #require(ISO8601Timestamp.date(from: timestamp))
        let text = try #require(ISO8601Timestamp.string(from: date))
        #expect(text.hasPrefix("9439-11-22T10:00:00.00888"))
        #expect(ISO8601Timestamp.date(from: text) == date)
    }
}
