import Foundation
import OpenAPIKit
import SwitchboardContract
import Testing

/// The bundled document against contract.md §3, read with OpenAPIKit.
@Suite("The bundled OpenAPI document")
struct BundledSpecTests {
    @Test("decodes as OpenAPI 3.1 and passes OpenAPIKit's validation")
    func validates() throws {
        let document = try ContractSpec.bundledDocument()
        #expect(document.openAPIVersion.rawValue.hasPrefix("3.1."))
        _ = try document.validate()
        #expect(document.webhooks.count == 9)
    }

    @Test("every event requires eventType (a const) and timestamp (date-time)")
    func header() throws {
        let contract = try EventContract.bundled()
        #expect(contract.events.count == 9)
        for event in contract.events {
            let eventType = try #require(event[field: "eventType"], "\(event.eventType)")
            #expect(eventType.isRequired && eventType.type == .string && eventType.enumValues == [event.eventType])
            let timestamp = try #require(event[field: "timestamp"], "\(event.eventType)")
            #expect(timestamp.isRequired && timestamp.type == .string && timestamp.format == "date-time")
            #expect(event.channel?.hasPrefix("vortex-app/user/{userId}/") == true, "\(event.eventType)")
        }
    }

    @Test("device and archive events carry the shared optional fields")
    func sharedFields() throws {
        let contract = try EventContract.bundled()
        let shared = ["orgId", "siteId", "thingName", "derivant", "mac"]
        for event in contract.events where event.eventType.hasPrefix("device/") || event.eventType.hasPrefix("archive/") {
            for name in shared {
                let field = event[field: name]
                #expect(field?.type == .string && field?.isRequired == false, "\(event.eventType) \(name)")
            }
        }
    }

    @Test("the specific fields have contract.md §3's types, bounds, formats and enum values")
    func specificFields() throws {
        let contract = try EventContract.bundled()
        let firmware = try #require(contract["device/firmwareUpdated"]?[field: "fwUpdateState"])
        #expect(firmware.type == .integer && firmware.rangeDescription == "-1...14")
        let archive = try #require(contract["archive/stateChanged"])
        #expect(archive[field: "videoLength"]?.type == .number)
        #expect(archive[field: "videoSize"]?.type == .integer && archive[field: "videoSize"]?.format == "int64")
        #expect(archive[field: "cloudSize"]?.type == .integer && archive[field: "cloudSize"]?.format == "int64")
        #expect(archive[field: "createdAt"]?.format == "date-time")
        #expect(archive[field: "status"]?.enumValues == ["Pending", "Uploading", "Processing", "Ready", "Failed", "Deleted"])
        #expect(contract["organization/licensePhaseChanged"]?[field: "licensePhase"]?.enumValues
            == ["SetupStatus", "Valid", "NoticePeriod", "GracePeriod", "RenewalOverdue", "Invalid"])
        let revoke = try #require(contract["user/tokenRevoked"])
        #expect(revoke[field: "userId"]?.isRequired == true)
        #expect(revoke[field: "revokedAt"]?.isRequired == true && revoke[field: "revokedAt"]?.format == "date-time")
        #expect(revoke[field: "reason"]?.enumValues == ["PASSWORD_CHANGED"] && revoke[field: "reason"]?.isRequired == false)
        let ai = try #require(contract["organization/aiSettingsChanged"]?[field: "aiControlSetting"])
        #expect(ai.type == .object && ai.fields.map(\.name) == ["uuid", "termsAgreement", "options"])
        #expect(ai[field: "options"]?.items?.fields.map(\.name) == ["key", "enabled"])
    }

    @Test("each webhook names its channel, and device and organization ones their wildcard")
    func wildcards() throws {
        let document = try ContractSpec.bundledDocument()
        for (name, entry) in document.webhooks {
            let operation = try #require(document.components[entry]?.post, "\(name)")
            let wildcard = operation.vendorExtensions["x-appsync-wildcard"]?.value as? String
            switch name.split(separator: "/").first {
            case "device": #expect(wildcard == "vortex-app/user/{userId}/device/*", "\(name)")
            case "organization": #expect(wildcard == "vortex-app/user/{userId}/organization/*", "\(name)")
            default: #expect(wildcard == nil, "\(name)")
            }
        }
    }

    @Test("the text the tool prints is the file in the repository")
    func bundledTextIsTheFile() throws {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/SwitchboardContract/Resources/appsync-events.openapi.yaml")
        #expect(try String(contentsOf: file, encoding: .utf8) == ContractSpec.bundledText)
    }
}

extension EventContract.Field {
    /// `-1...14`, for assertions.
    var rangeDescription: String? {
        guard let minimum, let maximum else { return nil }
        return "\(Int(minimum.value))...\(Int(maximum.value))"
    }
}
