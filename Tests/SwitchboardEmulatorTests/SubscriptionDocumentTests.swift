import Foundation
import Testing
@testable import SwitchboardEmulator

@Suite("Legacy subscription documents parsed and validated with GraphQLSwift", .timeLimit(.minutes(1)))
struct SubscriptionDocumentTests {
    private func refusal(_ query: String, variables: [String: Any] = [:], operationName: String? = nil) -> DocumentFailure? {
        guard case .failure(let failure) = SubscriptionDocument.read(query, variables: variables, operationName: operationName) else {
            Issue.record("expected \(query) to be refused")
            return nil
        }
        return failure
    }

    private func error(_ message: String, _ line: Int, _ column: Int) -> DocumentError {
        DocumentError(message: message, locations: [.init(line: line, column: column)])
    }

    @Test func syntaxErrorIsRefusedAtTheSyntaxStageWithItsLocation() throws {
        let failure = try #require(refusal("subscription { subscribeRoleChange(userId: \"1\") { reason }"))
        #expect(failure.stage == .syntax)
        #expect(failure.errors == [error("Syntax Error: Expected Name, found <EOF>.", 1, 59)])
    }

    @Test func unknownFieldsAreValidationErrors() throws {
        let root = try #require(refusal(#"subscription { subscribeNothing(userId: "1") { a } }"#))
        #expect(root.stage == .validation)
        #expect(root.errors == [error(
            #"Cannot query field "subscribeNothing" on type "Subscription". Did you mean "subscribeRoleChange" or "subscribeArchiveState"?"#,
            1, 16)])
        let nested = try #require(refusal("subscription {\n  subscribeRoleChange(userId: \"u1\") { nope } }"))
        #expect(nested.errors == [error(#"Cannot query field "nope" on type "RoleChange"."#, 2, 39)])
    }

    @Test func missingRequiredArgumentIsAValidationError() throws {
        let failure = try #require(refusal("subscription { subscribeDeviceState { online } }"))
        #expect(failure.stage == .validation)
        #expect(failure.errors == [error(
            #"Field "subscribeDeviceState" argument "userId" of type "ID!" is required, but it was not provided."#, 1, 16)])
    }

    @Test func wrongArgumentTypeIsAValidationError() throws {
        let literal = try #require(refusal("subscription { subscribeRoleChange(userId: true) { reason } }"))
        #expect(literal.stage == .validation)
        #expect(literal.errors.map(\.locations) == [[.init(line: 1, column: 44)]])
        #expect(literal.errors.first?.message.contains("ID") == true)
        let variable = try #require(refusal(
            "subscription S($u: String!) { subscribeRoleChange(userId: $u) { reason } }", variables: ["u": "u1"]))
        #expect(variable.errors.map(\.message) == [#"Variable "$u" of type "String!" used in position expecting type "ID!"."#])
    }

    @Test func nonSubscriptionOperationsAndSeveralRootFieldsAreRefused() throws {
        #expect(refusal("{ health }")?.errors.map(\.message) == ["Schema is not configured to execute query operation."])
        let two = try #require(refusal(#"subscription Two { subscribeRoleChange(userId: "1") { reason } b: subscribeRoleChange(userId: "2") { reason } }"#))
        #expect(two.stage == .validation)
        #expect(two.errors == [error(#"Subscription "Two" must select only one top level field."#, 1, 64)])
        let leaf = try #require(refusal(#"subscription { subscribeDeviceState(userId: "1") }"#))
        #expect(leaf.errors.first?.message.contains("must have a selection of subfields") == true)
    }

    @Test func variablesAreSubstitutedDefaultedAndCoerced() throws {
        let query = "subscription S($u: ID!) { subscribeRoleChange(userId: $u) { reason } }"
        #expect(try SubscriptionDocument.read(query, variables: ["u": "u7"]).get().argument == "u7")
        #expect(try SubscriptionDocument.read(query, variables: ["u": 42]).get().argument == "42")
        let defaulted = #"subscription S($u: ID = "d1") { subscribeRoleChange(userId: $u) { reason } }"#
        #expect(try SubscriptionDocument.read(defaulted, variables: [:]).get().argument == "d1")

        let missing = try #require(refusal(query))
        #expect(missing.stage == .execution)
        #expect(missing.errors == [error(#"Variable "$u" of required type "ID!" was not provided."#, 1, 16)])
        let wrong = try #require(refusal(query, variables: ["u": true]))
        #expect(wrong.stage == .execution)
        #expect(wrong.errors.first?.message.hasPrefix(#"Variable "$u" got invalid value true; "#) == true)
        #expect(refusal(query, variables: ["u": NSNull()])?.errors.map(\.message)
            == [#"Variable "$u" of non-null type "ID!" must not be null."#])
    }

    @Test func fragmentsInlineFragmentsAndSkipIncludeShapeTheSelection() throws {
        let query = """
            subscription Org($id: ID!, $withOptions: Boolean!) {
              subscribeOrganizationState(orgId: $id) {
                ...Basics
                AIControlSetting {
                  uuid @skip(if: true)
                  ... on AIControlSetting { termsAgreement }
                  options @include(if: $withOptions) { key }
                }
              }
            }
            fragment Basics on OrganizationState { orgId licensePhase }
            """
        let with = try SubscriptionDocument.read(query, variables: ["id": "o7", "withOptions": true]).get()
        #expect(with.field == "subscribeOrganizationState" && with.argument == "o7")
        #expect(with.selection.entries.map(\.key) == ["orgId", "licensePhase", "AIControlSetting"])
        #expect(with.selection.entries.last?.sub?.entries.map(\.key) == ["termsAgreement", "options"])
        let without = try SubscriptionDocument.read(query, variables: ["id": "o7", "withOptions": false]).get()
        #expect(without.selection.entries.last?.sub?.entries.map(\.key) == ["termsAgreement"])
        #expect(refusal("subscription { subscribeRoleChange(userId: \"1\") { ...Missing } }")?.errors.map(\.message)
            == [#"Unknown fragment "Missing"."#])
    }

    @Test func aliasesRenameFieldsInTheOutput() throws {
        let query = #"""
            subscription { mine: subscribeDeviceState(userId: "u1") { site: deviceGroupID online kind: __typename } }
            """#
        let subscription = try SubscriptionDocument.read(query, variables: [:]).get()
        #expect(subscription.field == "subscribeDeviceState" && subscription.responseKey == "mine")
        let data = LegacyEventMapping.result(for: subscription, payload: ["deviceGroupID": "s1", "online": true, "mac": "m"]).data
        let projected = try #require(data["mine"] as? [String: Any])
        #expect(projected.keys.sorted() == ["kind", "online", "site"])
        #expect(projected["site"] as? String == "s1" && projected["kind"] as? String == "DeviceState")
        let clash = try #require(refusal(#"subscription { subscribeDeviceState(userId: "u1") { a: mac a: online } }"#))
        #expect(clash.errors.first?.message.hasPrefix(#"Fields "a" conflict because "mac" and "online" are different fields."#) == true)
    }

    @Test func operationNameSelectsAmongSeveralOperations() throws {
        let query = #"""
            subscription A { subscribeRoleChange(userId: "a") { reason } }
            subscription B { subscribeRoleChange(userId: "b") { reason } }
            """#
        #expect(try SubscriptionDocument.read(query, variables: [:], operationName: "B").get().argument == "b")
        #expect(refusal(query)?.errors.map(\.message) == ["Must provide operation name if query contains multiple operations."])
        #expect(refusal(query, operationName: "C")?.errors.map(\.message) == [#"Unknown operation named "C"."#])
    }
}
