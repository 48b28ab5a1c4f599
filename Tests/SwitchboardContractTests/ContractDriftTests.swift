import Foundation
import OpenAPIKit
import SwitchboardContract
import Testing

@Suite("Drift between two versions of the spec")
struct ContractDriftTests {
    /// The bundled YAML with one edit, described.
    static func edited(_ old: String, _ new: String) throws -> EventContract {
        let text = ContractSpec.bundledText
        guard text.contains(old) else { throw FixtureError("the bundled spec no longer contains \(old)") }
        let document = try ContractSpec.document(
            from: Data(text.replacingOccurrences(of: old, with: new).utf8), source: "edited.yaml")
        return try EventContract(document: document, source: "edited.yaml")
    }

    static func drift(_ old: String, _ new: String) throws -> ContractDrift {
        ContractDrift(reference: try EventContract.bundled(), candidate: try edited(old, new))
    }

    @Test("a version identical in contract terms has no drift, even written as JSON")
    func identical() throws {
        let bundled = try EventContract.bundled()
        #expect(ContractDrift(reference: bundled, candidate: bundled).isEmpty)

        let json = try JSONEncoder().encode(ContractSpec.bundledDocument())
        let reloaded = try EventContract(document: ContractSpec.document(from: json, source: "bundled.json"))
        let drift = ContractDrift(reference: bundled, candidate: reloaded)
        #expect(drift.isEmpty, "\(drift.findings)")
        #expect(drift.commonEventCount == 9)
        #expect(drift.summary.hasPrefix("no drift: 9 events and"))

        // Descriptions are not the contract.
        #expect(try Self.drift("description: The organization.", "description: Whose it is.").isEmpty)
    }

    @Test("a changed enum value is reported with what was removed and added")
    func enumValues() throws {
        let drift = try Self.drift(
            "enum: [Pending, Uploading, Processing, Ready, Failed, Deleted]",
            "enum: [Pending, Uploading, Processing, Ready, Failed, Archived]")
        let finding = try #require(drift.findings.first)
        #expect(drift.findings.count == 1)
        #expect(finding.kind == .changedEnumValues && finding.kind.category == .changed)
        #expect(finding.eventType == "archive/stateChanged" && finding.path == "status")
        #expect(finding.detail == "removed Deleted; added Archived")
        #expect(finding.description.hasPrefix("changed archive/stateChanged status: enum values [Pending, "))
        #expect(drift.summary == "drift: 1 finding (0 missing, 0 extra, 1 changed) in 1 event")
    }

    @Test("missing and extra fields, nested ones included")
    func missingAndExtra() throws {
        let missing = try Self.drift(
            "        requestId: { type: string, description: \"The backend request that revoked them, for support.\" }\n", "")
        #expect(missing.findings.map(\.kind) == [.missingField])
        #expect(missing.findings.first?.description == "missing user/tokenRevoked requestId (string, optional): not in the candidate")

        let extra = try Self.drift(
            "        key: { type: string, description: The feature's key. }\n",
            "        key: { type: string, description: The feature's key. }\n        scope: { type: string }\n")
        #expect(extra.findings.map(\.kind) == [.extraField])
        #expect(extra.findings.first?.path == "aiControlSetting.options[].scope")
    }

    @Test("changed type, format, required, bounds and channel")
    func changes() throws {
        let type = try Self.drift("online: { type: boolean,", "online: { type: string,")
        #expect(type.findings.map(\.kind) == [.changedType])
        #expect(type.findings.first?.description == "changed device/presenceChanged online: type boolean → string")

        let format = try Self.drift("          format: int64\n          description: The video's", "          format: int32\n          description: The video's")
        #expect(format.findings.map(\.kind) == [.changedFormat])
        #expect(format.findings.first?.path == "videoSize")

        let required = try Self.drift("required: [eventType, timestamp, userId, revokedAt]", "required: [eventType, timestamp, userId]")
        #expect(required.findings.map(\.kind) == [.changedRequired])
        #expect(required.findings.first?.description == "changed user/tokenRevoked revokedAt: required required → optional")

        let nested = try Self.drift("required: [key, enabled]", "required: [key]")
        #expect(nested.findings.map(\.path) == ["aiControlSetting.options[].enabled"])

        let bounds = try Self.drift("maximum: 14", "maximum: 15")
        #expect(bounds.findings.map(\.kind) == [.changedBounds])
        #expect(bounds.findings.first?.description == "changed device/firmwareUpdated fwUpdateState: bounds -1...14 → -1...15")

        let channel = try Self.drift("x-appsync-channel: vortex-app/user/{userId}/roleChanged", "x-appsync-channel: vortex-app/user/{userId}/role")
        #expect(channel.findings.map(\.kind) == [.changedChannel])
    }

    @Test("missing and extra events")
    func events() throws {
        let bundled = try EventContract.bundled()
        var fewer = bundled
        fewer.events.removeAll { $0.eventType == "user/roleChanged" }
        var more = bundled
        more.events.append(.init(eventType: "user/deleted", schemaName: "UserDeleted", channel: nil, fields: []))

        let missing = ContractDrift(reference: bundled, candidate: fewer)
        #expect(missing.findings.map(\.kind) == [.missingEvent])
        #expect(missing.findings.first?.description == "missing user/roleChanged the event (schema UserRoleChanged): not in the candidate")
        let extra = ContractDrift(reference: bundled, candidate: more)
        #expect(extra.findings.map(\.kind) == [.extraEvent])
        #expect(extra.count(.extra) == 1 && extra.count(.missing) == 0)
    }

    @Test("unreadable, non-OpenAPI and invalid documents are typed errors")
    func errors() throws {
        func code(_ text: String) -> ContractError.Code? {
            do {
                _ = try ContractSpec.document(from: Data(text.utf8), source: "x.yaml")
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code("") == .notOpenAPI)
        #expect(code("openapi: [unclosed") == .notOpenAPI)
        #expect(code("title: not a spec\n") == .notOpenAPI)
        #expect(code("{\"openapi\": 3}") == .notOpenAPI)
        let dangling = ContractSpec.bundledText.replacingOccurrences(
            of: "#/components/schemas/AIOption'", with: "#/components/schemas/AIOptions'")
        #expect(code(dangling) == .invalidOpenAPI)
        let duplicateTags = ContractSpec.bundledText.replacingOccurrences(
            of: "x-appsync-namespace: vortex-app\n", with: "x-appsync-namespace: vortex-app\ntags: [{name: a}, {name: a}]\n")
        #expect(code(duplicateTags) == .invalidOpenAPI)
        // OpenAPIKit checks operation ids only under `paths`; ContractSpec adds webhooks.
        let duplicateIds = ContractSpec.bundledText.replacingOccurrences(
            of: "operationId: userRoleChanged", with: "operationId: userTokenRevoked")
        #expect(code(duplicateIds) == .invalidOpenAPI)

        let unreadable = #expect(throws: ContractError.self) {
            try EventContract(contentsOf: URL(fileURLWithPath: "/nonexistent/spec.yaml"))
        }
        #expect(unreadable?.code == .unreadable)
        #expect(unreadable?.message.contains("/nonexistent/spec.yaml") == true)
    }
}
