import Testing
@testable import SwitchboardEmulator

@Suite("Legacy GraphQL document parsing and validation", .timeLimit(.minutes(1)))
struct GraphQLDocumentParserTests {
    @Test func readsFieldVariableArgumentAndNestedSelection() throws {
        let query = """
            subscription Org($id: ID!) {
              # comment
              subscribeOrganizationState(orgId: $id) { orgId, AIControlSetting { options { key enabled } } }
            }
            """
        let parsed = try GraphQLDocumentParser.parse(query, variables: ["id": "o7"]).get()
        #expect(parsed.field == "subscribeOrganizationState")
        #expect(parsed.argument == "o7")
        #expect(parsed.selection.fields.map(\.name) == ["orgId", "AIControlSetting"])
        #expect(parsed.selection.fields[1].sub?.fields.first?.sub?.fields.map(\.name) == ["key", "enabled"])
    }

    @Test(arguments: [
        ("subscription { subscribeNothing(userId: \"1\") { a } }", "Cannot query field \"subscribeNothing\" on type \"Subscription\".", 1, 16),
        ("subscription { subscribeRoleChange(user: \"1\") { reason } }", "Unknown argument \"user\" on field \"Subscription.subscribeRoleChange\".", 1, 36),
        ("subscription { subscribeRoleChange(userId: $u) { reason } }", "Variable \"$u\" of required type \"ID!\" was not provided.", 1, 44),
        ("{ health }", "Schema is not configured to execute query operation.", 1, 1),
        ("subscription { subscribeRoleChange(userId: \"1\") { reason }", "Syntax Error: Unexpected <EOF>.", 1, 59),
        ("subscription { subscribeDeviceState(userId: \"1\") }", "Field \"subscribeDeviceState\" of type \"DeviceState\" must have a selection of subfields.", 1, 16),
    ])
    func rejectsWithMessageAndLocation(query: String, message: String, line: Int, column: Int) {
        guard case .failure(let error) = GraphQLDocumentParser.parse(query, variables: [:]) else {
            Issue.record("expected a validation error for \(query)")
            return
        }
        #expect(error == GraphQLError(message: message, line: line, column: column))
    }

    @Test func projectionKeepsOnlySelectedFieldsAndNullsMissingOnes() throws {
        let parsed = try GraphQLDocumentParser.parse(
            #"subscription { subscribeDeviceState(userId: "u") { mac online } }"#, variables: [:]).get()
        let projected = try #require(parsed.selection.project(["online": false, "thingName": "t"]) as? [String: Any])
        #expect(projected.keys.sorted() == ["mac", "online"])
        #expect(projected["online"] as? Bool == false)
    }
}
