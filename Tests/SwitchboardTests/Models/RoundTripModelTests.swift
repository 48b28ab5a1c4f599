import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("Encoding and round trips")
    struct RoundTrips {
        static let revokedAt = utc(2024, 5, 1, 3, 0, 0, milliseconds: 5)
        static let settings = Switchboard.AIControlSetting(
            uuid: "ai-1", termsAgreement: false, options: [AIOption(key: "k", enabled: true)]
        )

        static let device = DeviceStateOutput(
            eventType: "device/presenceChanged", timestamp: fixtureTimestamp, orgId: "o", siteId: "s",
            thingName: "t", derivant: "d", mac: "m", online: true, recording: false, fwUpdateState: 7
        )
        static let archive = ArchiveStateOutput(
            eventType: "archive/stateChanged", timestamp: fixtureTimestamp, orgId: "o", siteId: "s",
            thingName: "t", derivant: "d", mac: "m", archiveId: "a", status: .unknown("Quarantined"),
            videoLength: 61.25, videoSize: 5_000_000_000, cloudSize: 3_000_000_000, hasH265: true,
            createdAt: utc(2023, 1, 2, 3, 4, 5, milliseconds: 678)
        )
        static let organization = OrganizationStateOutput(
            eventType: "organization/licensePhaseChanged", timestamp: fixtureTimestamp, orgId: "o",
            licensePhase: .noticePeriod, isFreePlan: false, aiControlSetting: settings
        )
        static let revoke = UserTokenRevokeOutput(
            eventType: "user/tokenRevoked", timestamp: fixtureTimestamp, userId: "u", revokedAt: revokedAt,
            reason: .passwordChanged, requestId: "r"
        )

        /// One fully populated value of every model, type-erased for parameterisation.
        static let everyModel: [(String, @Sendable () throws -> Bool)] = [
            ("DeviceStateOutput", { try roundTrip(device) == device }),
            ("DevicePresenceOutput", {
                let value = DevicePresenceOutput(eventType: "e", timestamp: fixtureTimestamp, orgId: "o", siteId: "s",
                                                 thingName: "t", derivant: "d", mac: "m", online: false)
                return try roundTrip(value) == value
            }),
            ("DeviceRecordingOutput", {
                let value = DeviceRecordingOutput(eventType: "e", timestamp: fixtureTimestamp, orgId: "o", siteId: "s",
                                                  thingName: "t", derivant: "d", mac: "m", recording: true)
                return try roundTrip(value) == value
            }),
            ("DeviceFirmwareOutput", {
                let value = DeviceFirmwareOutput(eventType: "e", timestamp: fixtureTimestamp, orgId: "o", siteId: "s",
                                                 thingName: "t", derivant: "d", mac: "m", fwUpdateState: -1)
                return try roundTrip(value) == value
            }),
            ("ArchiveStateOutput", { try roundTrip(archive) == archive }),
            ("OrganizationStateOutput", { try roundTrip(organization) == organization }),
            ("LicenseStateOutput", {
                let value = LicenseStateOutput(eventType: "e", timestamp: fixtureTimestamp, orgId: "o", licensePhase: .unknown("X"))
                return try roundTrip(value) == value
            }),
            ("PlanStateOutput", {
                let value = PlanStateOutput(eventType: "e", timestamp: fixtureTimestamp, orgId: "o", isFreePlan: true)
                return try roundTrip(value) == value
            }),
            ("AISettingsOutput", {
                let value = AISettingsOutput(eventType: "e", timestamp: fixtureTimestamp, orgId: "o", aiControlSetting: settings)
                return try roundTrip(value) == value
            }),
            ("RoleChangeOutput", {
                let value = RoleChangeOutput(eventType: "e", timestamp: fixtureTimestamp, reason: "r")
                return try roundTrip(value) == value
            }),
            ("UserTokenRevokeOutput", { try roundTrip(revoke) == revoke }),
        ]

        @Test("every fully populated model survives encode then decode", arguments: everyModel.map(\.0))
        func fullRoundTrip(name: String) throws {
            let check = try #require(Self.everyModel.first { $0.0 == name }?.1)
            #expect(try check())
        }

        @Test("empty models survive a round trip and encode to an empty object")
        func emptyRoundTrip() throws {
            #expect(try roundTrip(DeviceStateOutput()) == DeviceStateOutput())
            #expect(try roundTrip(ArchiveStateOutput()) == ArchiveStateOutput())
            #expect(try roundTrip(OrganizationStateOutput()) == OrganizationStateOutput())
            #expect(try encodedKeys(DeviceStateOutput()).isEmpty)
            #expect(try encodedKeys(ArchiveStateOutput()).isEmpty)
            #expect(try encodedKeys(OrganizationStateOutput()).isEmpty)
            #expect(try encodedKeys(AISettingsOutput()).isEmpty)
            #expect(try encodedKeys(RoleChangeOutput()).isEmpty)
        }

        @Test("values decoded from legacy payloads encode under the new names only")
        func newNamesOnly() throws {
            let device = try decodePayload(DeviceStateOutput.self, #"{"deviceGroupID":"g","online":true}"#)
            #expect(try encodedKeys(device) == ["siteId", "online"])
            let organization = try decodePayload(OrganizationStateOutput.self, #"{"AIControlSetting":{"uuid":"u"}}"#)
            #expect(try encodedKeys(organization) == ["aiControlSetting"])
            let settings = try decodePayload(AISettingsOutput.self, #"{"AIControlSetting":{"uuid":"u"}}"#)
            #expect(try encodedKeys(settings) == ["aiControlSetting"])
            #expect(try roundTrip(settings) == settings)
        }

        @Test("dates encode as UTC ISO 8601 with fractional seconds; sizes as integers")
        func encodedShape() throws {
            let data = try JSONEncoder().encode(Self.archive)
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(object["timestamp"] as? String == "2024-05-01T03:34:56.789Z")
            #expect(object["createdAt"] as? String == "2023-01-02T03:04:05.678Z")
            #expect(object["status"] as? String == "Quarantined")
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""videoSize":5000000000"#))
            #expect(text.contains(#""cloudSize":3000000000"#))
            let revoke = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.revoke)) as? [String: Any])
            #expect(revoke["revokedAt"] as? String == "2024-05-01T03:00:00.005Z")
            #expect(revoke["reason"] as? String == "PASSWORD_CHANGED")
        }

        @Test("a legacy payload and its AppSync twin agree apart from the metadata")
        func transportsAgree() throws {
            let legacy = try decodePayload(ArchiveStateOutput.self, #"{"deviceGroupID":"s","videoSize":3.0E9,"status":"Ready"}"#)
            var appSync = try decodePayload(
                ArchiveStateOutput.self,
                #"{"eventType":"archive/stateChanged","timestamp":"2024-05-01T03:34:56.789Z","siteId":"s","videoSize":3000000000,"status":"Ready"}"#
            )
            #expect(appSync != legacy)
            appSync.eventType = nil
            appSync.timestamp = nil
            #expect(appSync == legacy)
        }

        @Test("a value decoded from a microsecond timestamp survives a round trip")
        func microsecondTimestamp() throws {
            let event = try decodePayload(RoleChangeOutput.self, #"{"timestamp":"2024-05-01T12:34:56.123456+09:00"}"#)
            #expect(try roundTrip(event) == event)
        }
    }
}
