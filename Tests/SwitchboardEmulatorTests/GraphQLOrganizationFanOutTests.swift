import Foundation
import SwitchboardCore
import Testing
@testable import SwitchboardEmulator

/// The backend publishes an organization event on the channel of every member of the
/// organization; a legacy `subscribeOrganizationState(orgId:)` subscriber gets it once.
@Suite("GraphQL organization subscription and fan-out publishing", .timeLimit(.minutes(1)))
struct GraphQLOrganizationFanOutTests {
    static let plan = #"{"eventType":"organization/planChanged","timestamp":"2026-01-01T00:00:00.000Z","orgId":"o1","isFreePlan":true}"#
    static let license = #"{"eventType":"organization/licensePhaseChanged","timestamp":"2026-01-01T00:00:01.000Z","orgId":"o1","licensePhase":"Valid"}"#

    @Test("an event fanned out to several members' channels arrives once; a repeat on one channel is a new event",
          arguments: ["graphql-transport-ws", "graphql-ws"])
    func fanOutArrivesOnce(subprotocol: String) async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: subprotocol) { socket in
                _ = try await socket.initialize(token: testAPIKey)
                let query = #"subscription { subscribeOrganizationState(orgId: "o1") { orgId isFreePlan licensePhase } }"#
                let start = subprotocol == "graphql-ws" ? "start" : "subscribe"
                try await socket.send(["type": start, "id": "o", "payload": ["query": query]])
                await emulator.waitForSubscriptions(1)
                // One logical event, fanned out to three members.
                for user in ["u1", "u2", "u3"] {
                    try emulator.publish(channel: "vortex-app/user/\(user)/organization/planChanged", event: Self.plan)
                }
                // The same text again on a channel that already carried it: a new event, fanned
                // out to two members, so once again.
                try emulator.publish(channel: "vortex-app/user/u2/organization/planChanged", event: Self.plan)
                try emulator.publish(channel: "vortex-app/user/u1/organization/planChanged", event: Self.plan)
                // A different event, then a marker that ends the test.
                try emulator.publish(channel: "vortex-app/user/u3/organization/licensePhaseChanged", event: Self.license)
                try emulator.publish(channel: "vortex-app/user/u1/organization/licensePhaseChanged", event: Self.license)
                try emulator.publish(channel: "vortex-app/user/u1/organization/planChanged",
                                     event: #"{"orgId":"o1","isFreePlan":false}"#)
                let resultType = subprotocol == "graphql-ws" ? "data" : "next"
                while let frame = try await socket.next(ofType: resultType) {
                    if frame.result("subscribeOrganizationState")?["isFreePlan"] as? Bool == false { break }
                }
            }
        }
        let results = result.all(subprotocol == "graphql-ws" ? "data" : "next").compactMap { $0.result("subscribeOrganizationState") }
        #expect(results.map { $0["isFreePlan"] as? Bool } == [true, true, nil, false])
        #expect(results.map { $0["licensePhase"] as? String } == [nil, nil, "Valid", nil])
    }

    @Test("the fan-out filter: copies on other members' channels are dropped, repeats and forgotten texts are new")
    func filter() {
        var fanOut = OrganizationFanOut(capacity: 2)
        let verdicts = [
            fanOut.admits("a", fromUser: "u1"),
            fanOut.admits("a", fromUser: "u2"),  // a copy
            fanOut.admits("a", fromUser: "u1"),  // u1 carried it already: a new event
            fanOut.admits("a", fromUser: "u2"),  // its copy
            fanOut.admits("b", fromUser: "u2"),
            fanOut.admits("c", fromUser: "u2"),  // "a" is forgotten (capacity 2)
            fanOut.admits("a", fromUser: "u3"),
        ]
        #expect(verdicts == [true, false, true, false, true, true, true])
    }
}
