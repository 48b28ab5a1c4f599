import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("EventPayloadDecoder")
    struct PayloadDecoder {
        @Test("invalid JSON and non-objects fail with decodingFailed", arguments: ["", "not json", "[]", "42", "null", #"{"online":tru}"#])
        func invalidPayloads(json: String) throws {
            let error = try #require(decodingError(DevicePresenceOutput.self, json))
            #expect(error.code == .decodingFailed)
            #expect(error.message.hasPrefix("Could not decode DevicePresenceOutput"))
            #expect(error.cause is DecodingError)
        }

        @Test("the message names the type, the field and the value")
        func messageShape() throws {
            let error = try #require(decodingError(DeviceFirmwareOutput.self, #"{"fwUpdateState":2.5}"#))
            #expect(error.message.hasPrefix("Could not decode DeviceFirmwareOutput: field 'fwUpdateState'"))
            let missing = try #require(decodingError(UserTokenRevokeOutput.self, #"{"revokedAt":"2024-05-01T00:00:00Z"}"#))
            #expect(missing.message == "Could not decode UserTokenRevokeOutput: required field 'userId' is missing")
        }

        @Test("unknownFields lists the extra top-level keys, sorted")
        func unknownFields() {
            let json = #"{"zeta":1,"online":true,"alpha":{"siteId":"nested keys do not count"},"deviceGroupID":"g","eventType":"x"}"#
            let unknown = EventPayloadDecoder.unknownFields(in: Data(json.utf8), known: DevicePresenceOutput.knownFieldNames)
            #expect(unknown == ["alpha", "zeta"])
            #expect(EventPayloadDecoder.unknownFields(in: Data(#"{"online":true}"#.utf8), known: DevicePresenceOutput.knownFieldNames) == [])
        }

        @Test("unknownFields returns nothing for non-objects", arguments: ["[1,2]", "\"text\"", "3", "null", "not json", ""])
        func unknownFieldsNonObject(json: String) {
            #expect(EventPayloadDecoder.unknownFields(in: Data(json.utf8), known: []) == [])
        }

        @Test("knownFieldNames cover every field of each contract")
        func knownFieldNames() {
            let device: Set<String> = ["eventType", "timestamp", "orgId", "siteId", "deviceGroupID", "thingName", "derivant", "mac"]
            #expect(DeviceStateOutput.knownFieldNames == device.union(["online", "recording", "fwUpdateState"]))
            #expect(DevicePresenceOutput.knownFieldNames == device.union(["online"]))
            #expect(DeviceRecordingOutput.knownFieldNames == device.union(["recording"]))
            #expect(DeviceFirmwareOutput.knownFieldNames == device.union(["fwUpdateState"]))
            #expect(ArchiveStateOutput.knownFieldNames == device.union(
                ["archiveId", "status", "videoLength", "videoSize", "cloudSize", "hasH265", "createdAt"]
            ))
            let organization: Set<String> = ["eventType", "timestamp", "orgId"]
            #expect(OrganizationStateOutput.knownFieldNames == organization.union(
                ["licensePhase", "isFreePlan", "aiControlSetting", "AIControlSetting"]
            ))
            #expect(LicenseStateOutput.knownFieldNames == organization.union(["licensePhase"]))
            #expect(PlanStateOutput.knownFieldNames == organization.union(["isFreePlan"]))
            #expect(AISettingsOutput.knownFieldNames == organization.union(["aiControlSetting", "AIControlSetting"]))
            #expect(RoleChangeOutput.knownFieldNames == ["eventType", "timestamp", "reason"])
            #expect(UserTokenRevokeOutput.knownFieldNames == ["eventType", "timestamp", "userId", "revokedAt", "reason", "requestId"])
        }

        @Test(
            "each event type's category and name",
            arguments: [
                (DeviceStateOutput.self as any SwitchboardEvent.Type, EventCategory.device, "device"),
                (DevicePresenceOutput.self, .device, "device.presence"),
                (DeviceRecordingOutput.self, .device, "device.recording"),
                (DeviceFirmwareOutput.self, .device, "device.firmware"),
                (ArchiveStateOutput.self, .device, "archive"),
                (OrganizationStateOutput.self, .organization, "organization"),
                (LicenseStateOutput.self, .organization, "organization.license"),
                (PlanStateOutput.self, .organization, "organization.plan"),
                (AISettingsOutput.self, .organization, "organization.aiSettings"),
                (RoleChangeOutput.self, .user, "user.role"),
                (UserTokenRevokeOutput.self, .user, "user.tokenRevoke"),
            ]
        )
        func identity(type: any SwitchboardEvent.Type, category: EventCategory, name: String) {
            #expect(type.category == category)
            #expect(type.eventName == name)
        }
    }
}
