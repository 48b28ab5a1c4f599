import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("ISO 8601 timestamps")
    struct Timestamps {
        @Test(
            "the same instant in every accepted spelling",
            arguments: [
                "2024-05-01T03:34:56.789Z",
                "2024-05-01T12:34:56.789+09:00",
                "2024-05-01T12:34:56.789+0900",
                "2024-04-30T22:04:56.789-05:30",
                "2024-05-01T03:34:56.789000Z",
                "2024-05-01T03:34:56.789000000z",
                "2024-05-01t03:34:56.789Z",
                "2024-05-01 03:34:56.789+00:00",
            ]
        )
        func sameInstant(text: String) throws {
            let date = try #require(ISO8601Timestamp.date(from: text))
            #expect(date == fixtureTimestamp)
        }

        @Test(
            "whole seconds with and without fractional digits",
            arguments: ["2024-05-01T03:34:56Z", "2024-05-01T12:34:56+09:00", "2024-05-01T03:34:56.000Z", "2024-05-01T12:34:56.0+09:00"]
        )
        func wholeSeconds(text: String) throws {
            #expect(ISO8601Timestamp.date(from: text) == utc(2024, 5, 1, 3, 34, 56))
        }

        @Test("timestamp fields decode the right instant", arguments: [
            "2024-05-01T03:34:56.789Z", "2024-05-01T12:34:56.789+09:00",
        ])
        func timestampField(text: String) throws {
            let event = try decodePayload(RoleChangeOutput.self, #"{"timestamp":"\#(text)"}"#)
            #expect(event.timestamp == fixtureTimestamp)
        }

        @Test("calendar edge cases", arguments: [
            ("2024-02-29T00:00:00Z", utc(2024, 2, 29, 0, 0, 0)),
            ("2000-03-01T00:00:00.001Z", utc(2000, 3, 1, 0, 0, 0, milliseconds: 1)),
            ("1970-01-01T00:00:00Z", Date(timeIntervalSince1970: 0)),
            ("1969-12-31T23:59:59.500Z", Date(timeIntervalSince1970: -0.5)),
            ("2024-01-01T00:30:00+01:00", utc(2023, 12, 31, 23, 30, 0)),
            ("9999-12-31T23:59:59Z", utc(9999, 12, 31, 23, 59, 59)),
        ])
        func calendar(text: String, expected: Date) throws {
            #expect(ISO8601Timestamp.date(from: text) == expected)
        }

        @Test(
            "malformed timestamps are rejected",
            arguments: [
                "", "yesterday", "2024-05-01", "2024-05-01T03:34:56", "2024-05-01T03:34Z", "2024-13-01T00:00:00Z",
                "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T03:60:00Z", "2024-05-01T03:34:56.Z",
                "2024-05-01T03:34:56+9:00", "2024-05-01T03:34:56+25:00", "2024-05-01T03:34:56Z ", "24-05-01T03:34:56Z",
                "2024-05-01T03:34:56.789ZZ", "2024-05-01T03:34:60Z", "１９７０-01-01T00:00:00Z",
            ]
        )
        func malformed(text: String) {
            #expect(ISO8601Timestamp.date(from: text) == nil)
        }

        @Test("an unparseable timestamp field fails naming the field and value")
        func badTimestampField() throws {
            let error = try #require(decodingError(DevicePresenceOutput.self, #"{"timestamp":"2024-05-01 noon"}"#))
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("'timestamp'"))
            #expect(error.message.contains("2024-05-01 noon"))
        }

        @Test("formatting is UTC with milliseconds")
        func formatting() {
            #expect(ISO8601Timestamp.string(from: fixtureTimestamp) == "2024-05-01T03:34:56.789Z")
            #expect(ISO8601Timestamp.string(from: utc(2024, 2, 29, 0, 0, 0)) == "2024-02-29T00:00:00.000Z")
            #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        }

        @Test("a date outside the years 0000...9999 does not format and fails to encode")
        func outOfRange() {
            let farFuture = Date(timeIntervalSince1970: 400_000_000_000)
            #expect(ISO8601Timestamp.string(from: farFuture) == nil)
            #expect(throws: EncodingError.self) {
                try JSONEncoder().encode(RoleChangeOutput(timestamp: farFuture))
            }
            // Proleptic Gregorian, as ISO 8601 asks (Foundation's calendar switches to Julian before 1582).
            let yearOne = ISO8601Timestamp.date(from: "0001-01-01T00:00:00Z")
            #expect(yearOne.flatMap(ISO8601Timestamp.string(from:)) == "0001-01-01T00:00:00.000Z")
            #expect(yearOne?.timeIntervalSince1970 == -62_135_596_800)
        }

        @Test("every millisecond of a second survives format then parse")
        func millisecondRoundTrip() throws {
            for base in [0.0, 1_714_534_496, -315_360_000, 4_102_444_800] as [Double] {
                for millisecond in 0..<1000 {
                    let text = try #require(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: base)))
                        .replacingOccurrences(of: ".000Z", with: String(format: ".%03dZ", millisecond))
                    let date = try #require(ISO8601Timestamp.date(from: text))
                    #expect(ISO8601Timestamp.string(from: date) == text)
                    #expect(ISO8601Timestamp.string(from: date).flatMap(ISO8601Timestamp.date(from:)) == date)
                }
            }
        }

        @Test("dates finer than a millisecond keep their precision through a round trip")
        func subMillisecondRoundTrip() throws {
            let parsed = try #require(ISO8601Timestamp.date(from: "2024-05-01T03:34:56.123456Z"))
            #expect(ISO8601Timestamp.string(from: parsed) == "2024-05-01T03:34:56.123456Z")
            for date in [Date(timeIntervalSinceReferenceDate: 736_000_000.123_456_7), Date(timeIntervalSince1970: 1.000_000_1)] {
                let text = try #require(ISO8601Timestamp.string(from: date))
                let again = try #require(ISO8601Timestamp.date(from: text))
                #expect(abs(again.timeIntervalSince(date)) < 1e-6, "\(text)")
            }
        }
    }
}
