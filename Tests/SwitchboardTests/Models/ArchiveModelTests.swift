import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("Archive events")
    struct ArchiveEvents {
        @Test("ArchiveStateOutput from an AppSync payload")
        func appSync() throws {
            let json = """
                {"eventType":"archive/stateChanged","timestamp":"2024-05-01T12:34:56.789+09:00",
                 "orgId":"org-1","siteId":"site-1","thingName":"thing-1","derivant":"VX-2","mac":"m1",
                 "archiveId":"arc-42","status":"Ready","videoLength":12.5,"videoSize":5000000000,
                 "cloudSize":2147483648,"hasH265":true,"createdAt":"2024-04-30T23:59:59Z"}
                """
            let event = try decodePayload(ArchiveStateOutput.self, json)
            #expect(event.eventType == "archive/stateChanged")
            #expect(event.timestamp == fixtureTimestamp)
            #expect(event.orgId == "org-1")
            #expect(event.siteId == "site-1")
            #expect(event.thingName == "thing-1")
            #expect(event.derivant == "VX-2")
            #expect(event.mac == "m1")
            #expect(event.archiveId == "arc-42")
            #expect(event.status == .ready)
            #expect(event.videoLength == 12.5)
            #expect(event.videoSize == 5_000_000_000)
            #expect(event.cloudSize == 2_147_483_648)
            #expect(event.hasH265 == true)
            #expect(event.createdAt == utc(2024, 4, 30, 23, 59, 59))
        }

        @Test("ArchiveStateOutput from a legacy ArchiveState with Float sizes")
        func legacy() throws {
            let json = """
                {"deviceGroupID":"group-7","orgId":"org-1","thingName":"thing-1","derivant":"VX-2","mac":"m1",
                 "archiveId":"arc-42","status":"Processing","videoLength":30.0,"videoSize":3.0E9,
                 "cloudSize":5000000000.0,"hasH265":false,"createdAt":"2024-04-30T23:59:59.500Z"}
                """
            let event = try decodePayload(ArchiveStateOutput.self, json)
            #expect(event == ArchiveStateOutput(
                orgId: "org-1", siteId: "group-7", thingName: "thing-1", derivant: "VX-2", mac: "m1",
                archiveId: "arc-42", status: .processing, videoLength: 30, videoSize: 3_000_000_000,
                cloudSize: 5_000_000_000, hasH265: false,
                createdAt: utc(2024, 4, 30, 23, 59, 59, milliseconds: 500)
            ))
            #expect(event.eventType == nil)
            #expect(event.timestamp == nil)
            #expect(legacySiteID(of: event) == "group-7")
        }

        @Test(
            "sizes above 2^31 decode from integers and integral floats",
            arguments: [
                ("5000000000", Int64(5_000_000_000)),
                ("3.0E9", 3_000_000_000),
                ("3000000000.0", 3_000_000_000),
                ("5000000000.0", 5_000_000_000),
                ("3e9", 3_000_000_000),
                ("9007199254740993", 9_007_199_254_740_993),
                ("0", 0),
            ]
        )
        func largeSizes(wire: String, expected: Int64) throws {
            let event = try decodePayload(ArchiveStateOutput.self, #"{"videoSize":\#(wire),"cloudSize":\#(wire)}"#)
            #expect(event.videoSize == expected)
            #expect(event.cloudSize == expected)
        }

        @Test(
            "a size with a fraction or outside Int64 fails naming the field",
            arguments: [("videoSize", "2.5"), ("cloudSize", "1.23456789E3"), ("videoSize", "1e30"), ("cloudSize", "\"12\"")]
        )
        func badSizes(field: String, wire: String) throws {
            let error = try #require(decodingError(ArchiveStateOutput.self, #"{"\#(field)":\#(wire)}"#))
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("ArchiveStateOutput"))
            #expect(error.message.contains(field))
            #expect(error.cause is DecodingError)
        }

        @Test("an unknown status decodes as unknown and round-trips")
        func unknownStatus() throws {
            let event = try decodePayload(ArchiveStateOutput.self, #"{"status":"Quarantined"}"#)
            #expect(event.status == .unknown("Quarantined"))
            #expect(event.status?.rawValue == "Quarantined")
            let again = try roundTrip(event)
            #expect(again == event)
            #expect(again.status == .unknown("Quarantined"))
        }

        @Test("an unparseable createdAt fails naming the field and value")
        func badCreatedAt() throws {
            let error = try #require(decodingError(ArchiveStateOutput.self, #"{"createdAt":"yesterday"}"#))
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("createdAt"))
            #expect(error.message.contains("yesterday"))
        }

        @Test("missing fields and explicit nulls decode as nil")
        func missingAndNull() throws {
            #expect(try decodePayload(ArchiveStateOutput.self, "{}") == ArchiveStateOutput())
            let nulls = """
                {"eventType":null,"timestamp":null,"orgId":null,"siteId":null,"thingName":null,"derivant":null,
                 "mac":null,"archiveId":null,"status":null,"videoLength":null,"videoSize":null,"cloudSize":null,
                 "hasH265":null,"createdAt":null}
                """
            #expect(try decodePayload(ArchiveStateOutput.self, nulls) == ArchiveStateOutput())
        }

        @Test("siteId wins over deviceGroupID")
        func siteIdWins() throws {
            let event = try decodePayload(ArchiveStateOutput.self, #"{"deviceGroupID":"old","siteId":"new"}"#)
            #expect(event.siteId == "new")
            #expect(legacySiteID(of: event) == "new")
        }
    }
}
