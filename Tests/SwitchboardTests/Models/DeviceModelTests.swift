import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("Device events")
    struct DeviceEvents {
        static let appSyncPresence = """
            {"eventType":"device/presenceChanged","timestamp":"2024-05-01T12:34:56.789+09:00",
             "orgId":"org-1","siteId":"site-1","thingName":"thing-1","derivant":"VX-2","mac":"AA:BB:CC:00:11:22",
             "online":true}
            """

        static let legacyDeviceState = """
            {"deviceGroupID":"group-7","orgId":"org-1","thingName":"thing-1","derivant":"VX-2",
             "mac":"AA:BB:CC:00:11:22","online":false,"recording":true,"fwUpdateState":3}
            """

        @Test("merged DeviceStateOutput from an AppSync firmware payload")
        func mergedFromAppSync() throws {
            let json = """
                {"eventType":"device/firmwareUpdated","timestamp":"2024-05-01T12:34:56.789+09:00",
                 "orgId":"org-1","siteId":"site-1","thingName":"thing-1","derivant":"VX-2",
                 "mac":"AA:BB:CC:00:11:22","fwUpdateState":14}
                """
            let event = try decodePayload(DeviceStateOutput.self, json)
            #expect(event == DeviceStateOutput(
                eventType: "device/firmwareUpdated", timestamp: fixtureTimestamp,
                orgId: "org-1", siteId: "site-1", thingName: "thing-1", derivant: "VX-2",
                mac: "AA:BB:CC:00:11:22", online: nil, recording: nil, fwUpdateState: 14
            ))
        }

        @Test("merged DeviceStateOutput from a legacy DeviceState with several fields set")
        func mergedFromLegacy() throws {
            let event = try decodePayload(DeviceStateOutput.self, Self.legacyDeviceState)
            #expect(event.eventType == nil)
            #expect(event.timestamp == nil)
            #expect(event.orgId == "org-1")
            #expect(event.siteId == "group-7")
            #expect(legacySiteID(of: event) == "group-7")
            #expect(event.thingName == "thing-1")
            #expect(event.derivant == "VX-2")
            #expect(event.mac == "AA:BB:CC:00:11:22")
            #expect(event.online == false)
            #expect(event.recording == true)
            #expect(event.fwUpdateState == 3)
        }

        @Test("DevicePresenceOutput from AppSync and from legacy")
        func presence() throws {
            let appSync = try decodePayload(DevicePresenceOutput.self, Self.appSyncPresence)
            #expect(appSync == DevicePresenceOutput(
                eventType: "device/presenceChanged", timestamp: fixtureTimestamp, orgId: "org-1",
                siteId: "site-1", thingName: "thing-1", derivant: "VX-2", mac: "AA:BB:CC:00:11:22", online: true
            ))
            let legacy = try decodePayload(DevicePresenceOutput.self, Self.legacyDeviceState)
            #expect(legacy == DevicePresenceOutput(
                orgId: "org-1", siteId: "group-7", thingName: "thing-1", derivant: "VX-2",
                mac: "AA:BB:CC:00:11:22", online: false
            ))
            #expect(legacySiteID(of: legacy) == "group-7")
        }

        @Test("DeviceRecordingOutput from AppSync and from legacy")
        func recording() throws {
            let json = """
                {"eventType":"device/recordingStateChanged","timestamp":"2024-05-01T03:34:56.789Z",
                 "orgId":"org-2","siteId":"site-2","thingName":"thing-2","derivant":"VX-3","mac":"m2","recording":false}
                """
            let appSync = try decodePayload(DeviceRecordingOutput.self, json)
            #expect(appSync == DeviceRecordingOutput(
                eventType: "device/recordingStateChanged", timestamp: fixtureTimestamp, orgId: "org-2",
                siteId: "site-2", thingName: "thing-2", derivant: "VX-3", mac: "m2", recording: false
            ))
            let legacy = try decodePayload(DeviceRecordingOutput.self, Self.legacyDeviceState)
            #expect(legacy == DeviceRecordingOutput(
                orgId: "org-1", siteId: "group-7", thingName: "thing-1", derivant: "VX-2",
                mac: "AA:BB:CC:00:11:22", recording: true
            ))
            #expect(legacySiteID(of: legacy) == "group-7")
        }

        @Test("DeviceFirmwareOutput from AppSync and from legacy")
        func firmware() throws {
            let json = """
                {"eventType":"device/firmwareUpdated","timestamp":"2024-05-01T03:34:56.789Z",
                 "orgId":"org-3","siteId":"site-3","thingName":"thing-3","derivant":"VX-4","mac":"m3","fwUpdateState":-1}
                """
            let appSync = try decodePayload(DeviceFirmwareOutput.self, json)
            #expect(appSync == DeviceFirmwareOutput(
                eventType: "device/firmwareUpdated", timestamp: fixtureTimestamp, orgId: "org-3",
                siteId: "site-3", thingName: "thing-3", derivant: "VX-4", mac: "m3", fwUpdateState: -1
            ))
            let legacy = try decodePayload(DeviceFirmwareOutput.self, Self.legacyDeviceState)
            #expect(legacy == DeviceFirmwareOutput(
                orgId: "org-1", siteId: "group-7", thingName: "thing-1", derivant: "VX-2",
                mac: "AA:BB:CC:00:11:22", fwUpdateState: 3
            ))
            #expect(legacySiteID(of: legacy) == "group-7")
        }

        @Test(
            "fwUpdateState accepts integral floats and keeps out-of-contract values",
            arguments: [("5.0", 5), ("5", 5), ("-1.0", -1), ("14", 14), ("99", 99), ("-7", -7), ("1.4E1", 14)]
        )
        func firmwareNumbers(wire: String, expected: Int) throws {
            let event = try decodePayload(DeviceFirmwareOutput.self, #"{"fwUpdateState":\#(wire)}"#)
            #expect(event.fwUpdateState == expected)
            let merged = try decodePayload(DeviceStateOutput.self, #"{"fwUpdateState":\#(wire)}"#)
            #expect(merged.fwUpdateState == expected)
        }

        @Test("a non-integral fwUpdateState fails naming the field")
        func firmwareFraction() throws {
            let error = try #require(decodingError(DeviceFirmwareOutput.self, #"{"fwUpdateState":2.5}"#))
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("DeviceFirmwareOutput"))
            #expect(error.message.contains("fwUpdateState"))
            #expect(error.message.contains("2.5"))
            #expect(error.cause is DecodingError)
        }

        @Test("siteId wins over deviceGroupID; deviceGroupID fills a null siteId")
        func siteIdPrecedence() throws {
            let both = try decodePayload(DevicePresenceOutput.self, #"{"siteId":"new","deviceGroupID":"old"}"#)
            #expect(both.siteId == "new")
            #expect(legacySiteID(of: both) == "new")
            let reversed = try decodePayload(DeviceStateOutput.self, #"{"deviceGroupID":"old","siteId":"new"}"#)
            #expect(reversed.siteId == "new")
            let nullNew = try decodePayload(DeviceRecordingOutput.self, #"{"siteId":null,"deviceGroupID":"old"}"#)
            #expect(nullNew.siteId == "old")
        }

        @Test("an empty object decodes with every field nil")
        func missingOptionals() throws {
            #expect(try decodePayload(DeviceStateOutput.self, "{}") == DeviceStateOutput())
            #expect(try decodePayload(DevicePresenceOutput.self, "{}") == DevicePresenceOutput())
            #expect(try decodePayload(DeviceRecordingOutput.self, "{}") == DeviceRecordingOutput())
            #expect(try decodePayload(DeviceFirmwareOutput.self, "{}") == DeviceFirmwareOutput())
        }

        @Test("explicit nulls decode as nil")
        func explicitNulls() throws {
            let json = """
                {"eventType":null,"timestamp":null,"orgId":null,"siteId":null,"deviceGroupID":null,
                 "thingName":null,"derivant":null,"mac":null,"online":null,"recording":null,"fwUpdateState":null}
                """
            #expect(try decodePayload(DeviceStateOutput.self, json) == DeviceStateOutput())
            #expect(try decodePayload(DevicePresenceOutput.self, json) == DevicePresenceOutput())
            #expect(try decodePayload(DeviceRecordingOutput.self, json) == DeviceRecordingOutput())
            #expect(try decodePayload(DeviceFirmwareOutput.self, json) == DeviceFirmwareOutput())
        }

        @Test("unknown fields are ignored")
        func unknownFieldsIgnored() throws {
            let json = #"{"online":true,"batteryLevel":80,"nested":{"a":[1,2]},"siteId":"s"}"#
            #expect(try decodePayload(DevicePresenceOutput.self, json) == DevicePresenceOutput(siteId: "s", online: true))
        }

        @Test("a wrongly typed field fails naming the field")
        func wrongType() throws {
            let error = try #require(decodingError(DevicePresenceOutput.self, #"{"online":"yes"}"#))
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("online"))
        }
    }
}
