import Foundation
import HummingbirdWSClient
import NIOWebSocket
import SwitchboardTesting
import Testing
@testable import SwitchboardEmulator

@Suite("GraphQL graphql-ws (subscriptions-transport-ws) on /graphql", .timeLimit(.minutes(1)))
struct GraphQLLegacyProtocolTests {
    @Test func deviceEventArrivesInLegacyShapeWithOnlySelectedFields() async throws {
        let token = makeJWT(sub: "u1")
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws") { socket in
                #expect(try await socket.initialize(token: token)?.type == "connection_ack")
                #expect(try await socket.next()?.type == "ka")
                try await socket.send([
                    "type": "start", "id": "1",
                    "payload": ["query": "subscription S($u: ID!) { subscribeDeviceState(userId: $u) { deviceGroupID online } }",
                                "variables": ["u": "u1"]],
                ])
                await emulator.waitForSubscriptions(1)
                try emulator.publish(
                    channel: "vortex-app/user/u1/device/presenceChanged",
                    event: #"{"eventType":"device/presenceChanged","timestamp":"2026-01-01T00:00:00Z","siteId":"site-9","thingName":"t","online":true}"#)
                _ = try await socket.next(ofType: "data")
            }
        }
        let data = try #require(result.first("data"))
        #expect(data.id == "1")
        let state = try #require(data.result("subscribeDeviceState"))
        #expect(state["deviceGroupID"] as? String == "site-9")
        #expect(state["online"] as? Bool == true)
        #expect(Set(state.keys) == ["deviceGroupID", "online"])
    }

    @Test func stopAnswersCompleteAndEndsDelivery() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send([
                    "type": "start", "id": "r", "payload": ["query": #"subscription { subscribeRoleChange(userId: "u1") { reason } }"#],
                ])
                await emulator.waitForSubscriptions(1)
                try await socket.send(["type": "stop", "id": "r"])
                _ = try await socket.next(ofType: "complete")
                #expect(emulator.subscriptionCount == 0)
                #expect(try emulator.publish(channel: "vortex-app/user/u1/roleChanged", event: #"{"reason":"x"}"#) == 0)
            }
        }
        #expect(result.first("complete")?.id == "r")
        #expect(result.all("data").isEmpty)
    }

    @Test func invalidDocumentAnswersValidationErrorsAsDataThenComplete() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send([
                    "type": "start", "id": "x", "payload": ["query": "subscription {\n  subscribeRoleChange(userId: \"u1\") { nope } }"],
                ])
                _ = try await socket.next(ofType: "complete")
            }
        }
        let data = try #require(result.first("data"))
        let payload = try #require(data.object["payload"] as? [String: Any])
        #expect(payload["data"] == nil)
        let errors = try #require(payload["errors"] as? [[String: Any]])
        #expect(errors.first?["message"] as? String == #"Cannot query field "nope" on type "RoleChange"."#)
        let location = try #require((errors.first?["locations"] as? [[String: Any]])?.first)
        #expect(location["line"] as? Int == 2)
        #expect(location["column"] as? Int == 39)
    }

    @Test func syntaxErrorIsAnErrorWithAMessageAndNoComplete() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send(["type": "start", "id": "s", "payload": ["query": "subscription { subscribeRoleChange( }"]])
                try await socket.send(["type": "start", "id": "v", "payload": ["query": "subscription { subscribeRoleChange { reason } }"]])
                _ = try await socket.next(ofType: "complete")
            }
        }
        let frames = result.frames.filter { $0.type != "ka" }
        #expect(frames.map { "\($0.type ?? "")/\($0.id ?? "")" } == ["connection_ack/", "error/s", "data/v", "complete/v"])
        let payload = try #require(result.first("error")?.object["payload"] as? [String: Any])
        #expect((payload["message"] as? String)?.hasPrefix("Syntax Error:") == true)
        #expect(payload.keys.sorted() == ["message"])
    }

    @Test func jwtForAnotherUserGetsAnErrorForThatSubscription() async throws {
        let token = makeJWT(sub: "u1")
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws") { socket in
                _ = try await socket.initialize(token: token)
                try await socket.send([
                    "type": "start", "id": "e", "payload": ["query": #"subscription { subscribeArchiveState(userId: "u2") { archiveId } }"#],
                ])
                _ = try await socket.next(ofType: "error")
                #expect(emulator.subscriptionCount == 0)
            }
        }
        let error = try #require(result.first("error"))
        #expect(error.id == "e")
        #expect(((error.object["payload"] as? [String: Any])?["message"] as? String)?.contains("Not Authorized") == true)
    }

    @Test func badTokenGetsConnectionError() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws") { socket in
                let answer = try await socket.initialize(token: "wrong")
                #expect(answer?.type == "connection_error")
                let end = try await socket.next()
                #expect(end == nil)
            }
        }
        // As strawberry-graphql refuses it: 1011 and no reason.
        #expect(result.close?.closeCode == .init(codeNumber: 1011))
        #expect(result.close?.reason ?? "" == "")
    }

    @Test func kaFollowsAtTheConfiguredInterval() async throws {
        let clock = ManualClock()
        let result = try await withRunningEmulator(configuration: testConfiguration(keepAlive: .seconds(5)), clock: clock) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                _ = try await socket.next()
                await clock.sleepers(atLeast: 1)
                clock.advance(by: .seconds(5))
                _ = try await socket.next()
            }
        }
        #expect(result.frames.map(\.type) == ["connection_ack", "ka", "ka"])
    }
}
