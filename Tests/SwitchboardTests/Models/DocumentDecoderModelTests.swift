import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    /// The notifier's fast path (``JSONDocument`` read by its decoder) must give exactly what
    /// `JSONDecoder` gives; where it declines, `JSONDecoder` decides, errors included.
    @Suite("EventPayloadDecoder fast path")
    struct DocumentDecoding {
        @Test("models decode to the same values as with JSONDecoder", arguments: [
            #"{"eventType":"archive/stateChanged","timestamp":"2024-05-01T12:00:00.5Z","orgId":"o","deviceGroupID":"g","archiveId":"a","status":"Ready","videoLength":12.5,"videoSize":5.0,"cloudSize":7,"hasH265":false,"createdAt":"2024-05-01T11:00:00Z"}"#,
            #"{"archiveId":"a","status":"SOMETHING_NEW","videoSize":null,"extra":{"nested":[1,2]}}"#,
            #"{"archiveId":"\u0041\n","siteId":null,"deviceGroupID":"g"}"#,
        ])
        func archive(json: String) throws {
            let data = Data(json.utf8)
            #expect(JSONDocument(data) != nil, "the fast path reads this payload")
            let fast = try EventPayloadDecoder.decode(ArchiveStateOutput.self, from: data)
            #expect(fast == (try JSONDecoder().decode(ArchiveStateOutput.self, from: data)))
        }

        @Test("a value the fast path declines still fails with JSONDecoder's error naming the field")
        func declinedError() {
            let data = Data(#"{"archiveId":"a","videoSize":1.5}"#.utf8)
            do {
                _ = try EventPayloadDecoder.decode(ArchiveStateOutput.self, from: data)
                Issue.record("expected a decoding failure")
            } catch {
                #expect(error.code == .decodingFailed)
                #expect(error.message.contains("videoSize"))
            }
        }

        /// Every catalog model's public `Codable` conformance (`JSONDecoder`, `JSONEncoder`) reads the
        /// legacy names and writes ISO 8601 timestamps under the new names, as the fast path does:
        /// a conformance the compiler synthesized from the stored properties would do neither.
        @Test("every model's Codable conformance agrees with the fast path, legacy names included")
        func everyModel() throws {
            let stamp = #""eventType":"t","timestamp":"2024-05-01T12:00:00.5Z""#
            let device = #"\#(stamp),"orgId":"o","deviceGroupID":"g","thingName":"n","derivant":"d","mac":"m""#
            let ai = #""AIControlSetting":{"uuid":"u","termsAgreement":true,"options":[{"key":"k","enabled":false}]}"#
            try agree(DevicePresenceOutput.self, #"{\#(device),"online":true}"#)
            try agree(DeviceRecordingOutput.self, #"{\#(device),"recording":false}"#)
            try agree(DeviceFirmwareOutput.self, #"{\#(device),"fwUpdateState":3}"#)
            try agree(DeviceStateOutput.self, #"{\#(device),"online":true,"recording":true,"fwUpdateState":-1}"#)
            try agree(ArchiveStateOutput.self, #"{\#(device),"archiveId":"a","status":"Ready","createdAt":"2024-05-01T11:00:00Z"}"#)
            try agree(OrganizationStateOutput.self, #"{\#(stamp),"orgId":"o","licensePhase":"Valid","isFreePlan":true,\#(ai)}"#)
            try agree(LicenseStateOutput.self, #"{\#(stamp),"orgId":"o","licensePhase":"Later"}"#)
            try agree(PlanStateOutput.self, #"{\#(stamp),"orgId":"o","isFreePlan":false}"#)
            try agree(AISettingsOutput.self, #"{\#(stamp),"orgId":"o",\#(ai)}"#)
            try agree(RoleChangeOutput.self, #"{\#(stamp),"reason":"r"}"#)
            try agree(UserTokenRevokeOutput.self, #"{\#(stamp),"userId":"u","revokedAt":"2024-05-01T10:00:00Z","reason":"X"}"#)
        }

        private func agree<T: PayloadDecodable & Codable & Equatable>(_ type: T.Type, _ json: String) throws {
            let data = Data(json.utf8)
            let fast = try EventPayloadDecoder.decode(T.self, from: data)
            #expect(fast == (try JSONDecoder().decode(T.self, from: data)), "\(T.self) decodes alike")
            let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(fast)) as? [String: Any]
            #expect(encoded?["timestamp"] as? String == "2024-05-01T12:00:00.500Z", "\(T.self) writes ISO 8601")
            #expect(encoded?["deviceGroupID"] == nil && encoded?["AIControlSetting"] == nil, "\(T.self) writes new names")
        }
    }
}
