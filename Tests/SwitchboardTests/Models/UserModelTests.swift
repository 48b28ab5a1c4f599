import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("User events")
    struct UserEvents {
        @Test("RoleChangeOutput from AppSync and from legacy")
        func role() throws {
            let json = #"{"eventType":"user/roleChanged","timestamp":"2024-05-01T12:34:56.789+09:00","reason":"promoted"}"#
            #expect(try decodePayload(RoleChangeOutput.self, json)
                == RoleChangeOutput(eventType: "user/roleChanged", timestamp: fixtureTimestamp, reason: "promoted"))
            #expect(try decodePayload(RoleChangeOutput.self, #"{"reason":"demoted"}"#) == RoleChangeOutput(reason: "demoted"))
            #expect(try decodePayload(RoleChangeOutput.self, "{}") == RoleChangeOutput())
            #expect(try decodePayload(RoleChangeOutput.self, #"{"reason":null,"timestamp":null}"#) == RoleChangeOutput())
        }

        @Test("UserTokenRevokeOutput from an AppSync payload")
        func revokeAppSync() throws {
            let json = """
                {"eventType":"user/tokenRevoked","timestamp":"2024-05-01T12:34:56.789+09:00","userId":"user-1",
                 "revokedAt":"2024-05-01T03:34:56.000Z","reason":"PASSWORD_CHANGED","requestId":"req-9"}
                """
            let event = try decodePayload(UserTokenRevokeOutput.self, json)
            #expect(event.eventType == "user/tokenRevoked")
            #expect(event.timestamp == fixtureTimestamp)
            #expect(event.userId == "user-1")
            #expect(event.revokedAt == utc(2024, 5, 1, 3, 34, 56))
            #expect(event.reason == .passwordChanged)
            #expect(event.requestId == "req-9")
        }

        @Test("UserTokenRevokeOutput from a legacy payload, optionals missing or null")
        func revokeLegacy() throws {
            let minimal = #"{"userId":"user-1","revokedAt":"2024-05-01T12:34:56+09:00"}"#
            let expected = UserTokenRevokeOutput(userId: "user-1", revokedAt: utc(2024, 5, 1, 3, 34, 56))
            #expect(try decodePayload(UserTokenRevokeOutput.self, minimal) == expected)
            let nulls = #"{"userId":"user-1","revokedAt":"2024-05-01T03:34:56Z","reason":null,"requestId":null,"x":1}"#
            #expect(try decodePayload(UserTokenRevokeOutput.self, nulls) == expected)
        }

        @Test(
            "a revoke without a valid userId or revokedAt fails naming the field",
            arguments: [
                (#"{"revokedAt":"2024-05-01T03:34:56Z"}"#, "userId"),
                (#"{"userId":null,"revokedAt":"2024-05-01T03:34:56Z"}"#, "userId"),
                (#"{"userId":"u"}"#, "revokedAt"),
                (#"{"userId":"u","revokedAt":null}"#, "revokedAt"),
                (#"{"userId":"u","revokedAt":"2024-05-01"}"#, "revokedAt"),
            ]
        )
        func revokeRequired(json: String, field: String) throws {
            let error = try #require(decodingError(UserTokenRevokeOutput.self, json))
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("UserTokenRevokeOutput"))
            #expect(error.message.contains("'\(field)'"))
        }

        @Test("an unknown revoke reason decodes as unknown and round-trips")
        func unknownReason() throws {
            let json = #"{"userId":"u","revokedAt":"2024-05-01T03:34:56Z","reason":"ADMIN_REVOKED"}"#
            let event = try decodePayload(UserTokenRevokeOutput.self, json)
            #expect(event.reason == .unknown("ADMIN_REVOKED"))
            #expect(try roundTrip(event) == event)
            #expect(try roundTrip(event).reason?.rawValue == "ADMIN_REVOKED")
        }
    }
}
