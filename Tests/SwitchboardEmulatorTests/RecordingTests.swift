import Foundation
import Testing
@testable import SwitchboardEmulator

@Suite("Frame recording", .timeLimit(.minutes(1)))
struct RecordingTests {
    @Test func everyFrameIsRecordedAsJSONLinesWithCredentialsRedacted() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = testConfiguration()
        configuration.recordingPath = path
        try await withRunningEmulator(configuration: configuration) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
            }
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let records = lines.compactMap { JSONText.decodeObject(String($0)) }
        #expect(records.count == 4)
        #expect(records.map { $0["direction"] as? String } == ["in", "out", "in", "out"])
        #expect(records.allSatisfy { $0["connection"] as? Int == 1 })
        #expect(records.allSatisfy { $0["endpoint"] as? String == "/event/realtime" })
        #expect(records.allSatisfy { $0["protocol"] as? String == "aws-appsync-event-ws" })
        #expect(records.allSatisfy { ($0["offsetMs"] as? Double ?? -1) >= 0 })
        let frames = records.compactMap { $0["frame"] as? String }
        #expect(JSONText.decodeObject(frames[1])?["type"] as? String == "connection_ack")
        #expect(frames[2].contains("REDACTED"))
        #expect(!lines.joined().contains(testAPIKey))
    }
}
