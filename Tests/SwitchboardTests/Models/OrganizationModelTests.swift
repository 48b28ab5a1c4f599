import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("Organization events")
    struct OrganizationEvents {
        static let settings = Switchboard.AIControlSetting(
            uuid: "ai-1", termsAgreement: true,
            options: [AIOption(key: "faceBlur", enabled: true), AIOption(key: "search", enabled: false)]
        )

        static let settingsJSON = """
            {"uuid":"ai-1","termsAgreement":true,"options":[{"key":"faceBlur","enabled":true},{"key":"search","enabled":false}]}
            """

        static let legacyOrganizationState = """
            {"orgId":"org-1","licensePhase":"GracePeriod","isFreePlan":true,"AIControlSetting":\(settingsJSON)}
            """

        @Test("merged OrganizationStateOutput from AppSync and from legacy")
        func merged() throws {
            let json = """
                {"eventType":"organization/aiSettingsChanged","timestamp":"2024-05-01T12:34:56.789+09:00",
                 "orgId":"org-1","aiControlSetting":\(Self.settingsJSON)}
                """
            let appSync = try decodePayload(OrganizationStateOutput.self, json)
            #expect(appSync == OrganizationStateOutput(
                eventType: "organization/aiSettingsChanged", timestamp: fixtureTimestamp, orgId: "org-1",
                licensePhase: nil, isFreePlan: nil, aiControlSetting: Self.settings
            ))
            let legacy = try decodePayload(OrganizationStateOutput.self, Self.legacyOrganizationState)
            #expect(legacy.eventType == nil)
            #expect(legacy.timestamp == nil)
            #expect(legacy.orgId == "org-1")
            #expect(legacy.licensePhase == .gracePeriod)
            #expect(legacy.isFreePlan == true)
            #expect(legacy.aiControlSetting == Self.settings)
            #expect(legacyAISettings(of: legacy) == Self.settings)
        }

        @Test("LicenseStateOutput from AppSync and from legacy")
        func license() throws {
            let json = """
                {"eventType":"organization/licensePhaseChanged","timestamp":"2024-05-01T03:34:56.789Z",
                 "orgId":"org-9","licensePhase":"RenewalOverdue"}
                """
            #expect(try decodePayload(LicenseStateOutput.self, json) == LicenseStateOutput(
                eventType: "organization/licensePhaseChanged", timestamp: fixtureTimestamp, orgId: "org-9",
                licensePhase: .renewalOverdue
            ))
            #expect(try decodePayload(LicenseStateOutput.self, Self.legacyOrganizationState)
                == LicenseStateOutput(orgId: "org-1", licensePhase: .gracePeriod))
        }

        @Test("PlanStateOutput from AppSync and from legacy")
        func plan() throws {
            let json = """
                {"eventType":"organization/planChanged","timestamp":"2024-05-01T03:34:56.789Z",
                 "orgId":"org-9","isFreePlan":false}
                """
            #expect(try decodePayload(PlanStateOutput.self, json) == PlanStateOutput(
                eventType: "organization/planChanged", timestamp: fixtureTimestamp, orgId: "org-9", isFreePlan: false
            ))
            #expect(try decodePayload(PlanStateOutput.self, Self.legacyOrganizationState)
                == PlanStateOutput(orgId: "org-1", isFreePlan: true))
        }

        @Test("AISettingsOutput from AppSync and from legacy, with the deprecated alias")
        func aiSettings() throws {
            let json = """
                {"eventType":"organization/aiSettingsChanged","timestamp":"2024-05-01T03:34:56.789Z",
                 "orgId":"org-9","aiControlSetting":\(Self.settingsJSON)}
                """
            #expect(try decodePayload(AISettingsOutput.self, json) == AISettingsOutput(
                eventType: "organization/aiSettingsChanged", timestamp: fixtureTimestamp, orgId: "org-9",
                aiControlSetting: Self.settings
            ))
            let legacy = try decodePayload(AISettingsOutput.self, Self.legacyOrganizationState)
            #expect(legacy == AISettingsOutput(orgId: "org-1", aiControlSetting: Self.settings))
            #expect(legacyAISettings(of: legacy) == Self.settings)
        }

        @Test("aiControlSetting wins over the legacy AIControlSetting")
        func newNameWins() throws {
            let json = #"{"aiControlSetting":{"uuid":"new"},"AIControlSetting":{"uuid":"old"}}"#
            #expect(try decodePayload(AISettingsOutput.self, json).aiControlSetting?.uuid == "new")
            #expect(try decodePayload(OrganizationStateOutput.self, json).aiControlSetting?.uuid == "new")
            let nullNew = #"{"aiControlSetting":null,"AIControlSetting":{"uuid":"old"}}"#
            #expect(try decodePayload(AISettingsOutput.self, nullNew).aiControlSetting?.uuid == "old")
        }

        @Test("partial AI settings: missing fields and nulls are nil, unknown fields are ignored")
        func partialSettings() throws {
            let json = #"{"aiControlSetting":{"uuid":null,"options":[],"futureFlag":1}}"#
            let event = try decodePayload(AISettingsOutput.self, json)
            #expect(event.aiControlSetting == Switchboard.AIControlSetting(uuid: nil, termsAgreement: nil, options: []))
        }

        @Test("an option without enabled fails naming the path")
        func optionMissingEnabled() throws {
            let json = #"{"aiControlSetting":{"options":[{"key":"a","enabled":true},{"key":"b"}]}}"#
            let error = try #require(decodingError(AISettingsOutput.self, json))
            #expect(error.code == .decodingFailed)
            #expect(error.message.contains("aiControlSetting.options[1].enabled"))
        }

        @Test("an unknown license phase decodes as unknown and round-trips")
        func unknownPhase() throws {
            let event = try decodePayload(LicenseStateOutput.self, #"{"licensePhase":"Suspended"}"#)
            #expect(event.licensePhase == .unknown("Suspended"))
            #expect(try roundTrip(event).licensePhase == .unknown("Suspended"))
            let merged = try decodePayload(OrganizationStateOutput.self, #"{"licensePhase":"Suspended"}"#)
            #expect(merged.licensePhase == .unknown("Suspended"))
        }

        @Test("missing fields and explicit nulls decode as nil")
        func missingAndNull() throws {
            let nulls = """
                {"eventType":null,"timestamp":null,"orgId":null,"licensePhase":null,"isFreePlan":null,
                 "aiControlSetting":null,"AIControlSetting":null}
                """
            for json in ["{}", nulls] {
                #expect(try decodePayload(OrganizationStateOutput.self, json) == OrganizationStateOutput())
                #expect(try decodePayload(LicenseStateOutput.self, json) == LicenseStateOutput())
                #expect(try decodePayload(PlanStateOutput.self, json) == PlanStateOutput())
                #expect(try decodePayload(AISettingsOutput.self, json) == AISettingsOutput())
            }
        }
    }
}
