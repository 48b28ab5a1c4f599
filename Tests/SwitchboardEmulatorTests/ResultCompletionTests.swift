import Foundation
import Testing
@testable import SwitchboardEmulator

/// The emulator's legacy results completed as a GraphQL executor completes them. The expected
/// results are what strawberry-graphql (graphql-core 3.3) answered for the same documents and
/// payloads (`Scripts/legacy-server`); EndToEndTests compares the two servers live.
@Suite("Legacy results: leaves serialised by the schema, nulls propagated, errors as graphql-core words them", .timeLimit(.minutes(1)))
struct ResultCompletionTests {
    static let organization = """
        subscription S($orgId: ID!) { subscribeOrganizationState(orgId: $orgId) { orgId licensePhase isFreePlan \
        AIControlSetting { uuid termsAgreement options { key enabled } } } }
        """

    private func result(_ query: String, _ payload: [String: Any]) throws -> (data: NSDictionary, errors: NSArray) {
        let subscription = try SubscriptionDocument.read(query, variables: ["orgId": "o", "userId": "u"]).get()
        let result = LegacyEventMapping.result(for: subscription, payload: payload)
        return (result.data as NSDictionary, result.errors as NSArray)
    }

    private func error(_ message: String, column: Int, path: [Any]) -> NSDictionary {
        ["message": message, "locations": [["line": 1, "column": column]], "path": path] as NSDictionary
    }

    @Test func anEnumValueOutsideTheSchemaIsNullWithAnError() throws {
        let (data, errors) = try result(Self.organization, ["orgId": "o", "licensePhase": "Suspended"])
        #expect(data == ["subscribeOrganizationState": [
            "orgId": "o", "licensePhase": NSNull(), "isFreePlan": NSNull(), "AIControlSetting": NSNull(),
        ]] as NSDictionary)
        #expect(errors == [error(
            "Enum 'LicensePhase' cannot represent value: 'Suspended'", column: 81,
            path: ["subscribeOrganizationState", "licensePhase"])] as NSArray)
    }

    @Test func aNullInANonNullFieldNullsTheNearestNullableParent() throws {
        let (data, errors) = try result(Self.organization, [
            "orgId": "o", "licensePhase": "Valid", "AIControlSetting": ["uuid": "x", "options": [["key": "k"]]],
        ])
        // `options: [AIOption!]`: the item cannot be null, so the list is.
        #expect(data == ["subscribeOrganizationState": [
            "orgId": "o", "licensePhase": "Valid", "isFreePlan": NSNull(),
            "AIControlSetting": ["uuid": "x", "termsAgreement": NSNull(), "options": NSNull()],
        ]] as NSDictionary)
        #expect(errors == [error(
            "Cannot return null for non-nullable field AIOption.enabled.", column: 158,
            path: ["subscribeOrganizationState", "AIControlSetting", "options", 0, "enabled"])] as NSArray)
    }

    @Test func aMissingRequiredFieldNullsTheRootField() throws {
        let query = #"subscription { subscribeUserTokenRevoke(userId: "u") { userId revokedAt reason } }"#
        let (data, errors) = try result(query, ["userId": "u", "reason": "PASSWORD_CHANGED"])
        #expect(data == ["subscribeUserTokenRevoke": NSNull()] as NSDictionary)
        #expect(errors == [error(
            "Cannot return null for non-nullable field UserTokenRevoke.revokedAt.", column: 63,
            path: ["subscribeUserTokenRevoke", "revokedAt"])] as NSArray)
    }

    @Test func scalarsAreCoercedOrRefused() throws {
        let device = #"subscription { subscribeDeviceState(userId: "u") { fwUpdateState online thingName } }"#
        let overflow = try result(device, ["fwUpdateState": 3_000_000_000, "online": 1, "thingName": 12.5])
        #expect(overflow.data == ["subscribeDeviceState": ["fwUpdateState": NSNull(), "online": true, "thingName": "12.5"]] as NSDictionary)
        #expect(overflow.errors == [error(
            "Int cannot represent non 32-bit signed integer value: 3000000000", column: 52,
            path: ["subscribeDeviceState", "fwUpdateState"])] as NSArray)
        let fraction = try result(device, ["fwUpdateState": 1.5])
        #expect((fraction.errors.firstObject as? NSDictionary)?["message"] as? String == "Int cannot represent non-integer value: 1.5")

        let archive = #"subscription { subscribeArchiveState(userId: "u") { videoSize status } }"#
        let sizes = try result(archive, ["videoSize": 3_000_000_000, "status": "Ready"])
        #expect(sizes.data == ["subscribeArchiveState": ["videoSize": 3_000_000_000.0, "status": "Ready"]] as NSDictionary)
        #expect(sizes.errors.count == 0)
        let text = try result(archive, ["videoSize": "big"])
        #expect((text.errors.firstObject as? NSDictionary)?["message"] as? String == "Float cannot represent non numeric value: 'big'")
    }
}
