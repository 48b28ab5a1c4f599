import Foundation
import HummingbirdWSClient
import NIOWebSocket
import SwitchboardTesting
import Testing
@testable import SwitchboardEmulator

@Suite("GraphQL graphql-transport-ws on /graphql", .timeLimit(.minutes(1)))
struct GraphQLTransportProtocolTests {
    @Test func allFiveSubscriptionsReceiveTheirEventsInLegacyShape() async throws {
        let subscriptions: [(String, String)] = [
            ("d", #"subscription { subscribeDeviceState(userId: "u1") { deviceGroupID fwUpdateState } }"#),
            ("o", #"subscription { subscribeOrganizationState(orgId: "o1") { orgId AIControlSetting { uuid options { key } } } }"#),
            ("a", #"subscription { subscribeArchiveState(userId: "u1") { archiveId status videoSize } }"#),
            ("r", #"subscription { subscribeRoleChange(userId: "u1") { reason } }"#),
            ("t", #"subscription { subscribeUserTokenRevoke(userId: "u1") { userId revokedAt reason } }"#),
        ]
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                #expect(try await socket.initialize(token: testAPIKey)?.type == "connection_ack")
                for (id, query) in subscriptions {
                    try await socket.send(["type": "subscribe", "id": id, "payload": ["query": query]])
                }
                await emulator.waitForSubscriptions(5)
                let base = "vortex-app/user/u1/"
                try emulator.publish(channel: base + "device/firmwareUpdated",
                                     event: #"{"eventType":"device/firmwareUpdated","siteId":"s1","fwUpdateState":7}"#)
                try emulator.publish(channel: base + "organization/aiSettingsChanged", event: #"""
                    {"eventType":"organization/aiSettingsChanged","orgId":"o1","aiControlSetting":{"uuid":"x","termsAgreement":true,"options":[{"key":"k","enabled":true}]}}
                    """#)
                try emulator.publish(channel: base + "organization/planChanged", event: #"{"orgId":"other","isFreePlan":true}"#)
                try emulator.publish(channel: base + "archive/stateChanged",
                                     event: #"{"archiveId":"a1","status":"Ready","videoSize":5000000000,"timestamp":"t"}"#)
                try emulator.publish(channel: base + "roleChanged", event: #"{"eventType":"user/roleChanged","reason":"promoted"}"#)
                try emulator.publish(channel: base + "tokenRevoked",
                                     event: #"{"userId":"u1","revokedAt":"2026-01-01T00:00:00Z","reason":"PASSWORD_CHANGED","requestId":"q"}"#)
                try emulator.publish(channel: "vortex-app/user/u2/roleChanged", event: #"{"reason":"not mine"}"#)
                for _ in 0..<5 { _ = try await socket.next(ofType: "next") }
            }
        }
        let next = Dictionary(uniqueKeysWithValues: result.all("next").map { ($0.id!, $0) })
        #expect(next.count == 5)
        let device = try #require(next["d"]?.result("subscribeDeviceState"))
        #expect(device["deviceGroupID"] as? String == "s1" && device["fwUpdateState"] as? Int == 7 && device.count == 2)
        let organization = try #require(next["o"]?.result("subscribeOrganizationState"))
        #expect(organization["orgId"] as? String == "o1")
        let setting = try #require(organization["AIControlSetting"] as? [String: Any])
        #expect(setting["uuid"] as? String == "x" && setting["termsAgreement"] == nil)
        #expect((setting["options"] as? [[String: Any]])?.first?.keys.sorted() == ["key"])
        let archive = try #require(next["a"]?.result("subscribeArchiveState"))
        #expect(archive["status"] as? String == "Ready" && archive["videoSize"] as? Int == 5_000_000_000)
        #expect(archive["timestamp"] == nil && archive.count == 3)
        #expect(next["r"]?.result("subscribeRoleChange")?["reason"] as? String == "promoted")
        #expect(next["r"]?.result("subscribeRoleChange")?.count == 1)
        let revoke = try #require(next["t"]?.result("subscribeUserTokenRevoke"))
        #expect(revoke["reason"] as? String == "PASSWORD_CHANGED" && revoke["requestId"] == nil)
    }

    @Test func validationErrorIsAnErrorFrameWithMessageAndLocations() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send(["type": "subscribe", "id": "1", "payload": ["query": "subscription { subscribeDeviceState { online } }"]])
                _ = try await socket.next(ofType: "error")
            }
        }
        let errors = try #require(result.first("error")?.object["payload"] as? [[String: Any]])
        #expect(errors.first?["message"] as? String
            == #"Field "subscribeDeviceState" argument "userId" of type "ID!" is required, but it was not provided."#)
        #expect((errors.first?["locations"] as? [[String: Any]])?.first?["column"] as? Int == 16)
    }

    @Test func syntaxErrorIsAnErrorFrameAndNoComplete() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send(["type": "subscribe", "id": "1", "payload": ["query": "subscription { subscribeRoleChange("]])
                try await socket.send(["type": "ping"])
                _ = try await socket.next(ofType: "pong")
            }
        }
        #expect(result.frames.map(\.type) == ["connection_ack", "error", "pong"])
        let errors = try #require(result.first("error")?.object["payload"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect((errors.first?["message"] as? String)?.hasPrefix("Syntax Error:") == true)
        #expect((errors.first?["locations"] as? [[String: Any]])?.first?["column"] as? Int == 36)
    }

    @Test func missingVariableIsANextWithErrorsThenComplete() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send(["type": "subscribe", "id": "v", "payload": [
                    "query": "subscription S($u: ID!) { subscribeRoleChange(userId: $u) { reason } }", "variables": [:] as [String: Any],
                ]])
                _ = try await socket.next(ofType: "complete")
                #expect(emulator.subscriptionCount == 0)
            }
        }
        #expect(result.frames.map(\.type) == ["connection_ack", "next", "complete"])
        let payload = try #require(result.first("next")?.object["payload"] as? [String: Any])
        let errors = try #require(payload["errors"] as? [[String: Any]])
        #expect(errors.first?["message"] as? String == #"Variable "$u" of required type "ID!" was not provided."#)
        #expect(payload["data"] == nil)
    }

    @Test func aliasesRenameTheDeliveredFields() async throws {
        let query = #"subscription { mine: subscribeRoleChange(userId: "u1") { why: reason ...More } } fragment More on RoleChange { kind: __typename }"#
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send(["type": "subscribe", "id": "a", "payload": ["query": query]])
                await emulator.waitForSubscriptions(1)
                try emulator.publish(channel: "vortex-app/user/u1/roleChanged", event: #"{"eventType":"user/roleChanged","reason":"promoted"}"#)
                _ = try await socket.next(ofType: "next")
            }
        }
        let data = try #require((result.first("next")?.object["payload"] as? [String: Any])?["data"] as? [String: Any])
        #expect(Array(data.keys) == ["mine"])
        let mine = try #require(data["mine"] as? [String: Any])
        #expect(mine.keys.sorted() == ["kind", "why"])
        #expect(mine["why"] as? String == "promoted" && mine["kind"] as? String == "RoleChange")
    }

    @Test func jwtForAnotherUserGetsAnErrorArray() async throws {
        let token = makeJWT(sub: "u1")
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: token)
                try await socket.send(["type": "subscribe", "id": "1",
                                       "payload": ["query": #"subscription { subscribeRoleChange(userId: "u2") { reason } }"#]])
                _ = try await socket.next(ofType: "error")
            }
        }
        let errors = try #require(result.first("error")?.object["payload"] as? [[String: Any]])
        #expect((errors.first?["message"] as? String)?.contains("Not Authorized") == true)
    }

    @Test func duplicateIdClosesWith4409() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                let subscribe: [String: Any] = ["type": "subscribe", "id": "same",
                                                "payload": ["query": #"subscription { subscribeRoleChange(userId: "u1") { reason } }"#]]
                try await socket.send(subscribe)
                try await socket.send(subscribe)
                while try await socket.next() != nil {}
            }
        }
        #expect(result.close?.closeCode == .init(codeNumber: 4409))
    }

    @Test func pingIsAnsweredWithPongEchoingThePayload() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                try await socket.send(["type": "ping", "payload": ["n": 1]])
                _ = try await socket.next(ofType: "pong")
            }
        }
        #expect((result.first("pong")?.object["payload"] as? [String: Any])?["n"] as? Int == 1)
    }

    @Test func subscribeBeforeAckClosesWith4401AndSecondInitWith4429() async throws {
        let early = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                try await socket.send(["type": "subscribe", "id": "1", "payload": ["query": "subscription { x }"]])
                while try await socket.next() != nil {}
            }
        }
        #expect(early.close?.closeCode == .init(codeNumber: 4401))
        let twice = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                try await socket.send(["type": "connection_init", "payload": ["Authorization": testAPIKey]])
                while try await socket.next() != nil {}
            }
        }
        #expect(twice.close?.closeCode == .init(codeNumber: 4429))
    }

    @Test func rejectedAuthClosesWith4403IncludingTheFault() async throws {
        let bad = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                try await socket.send(["type": "connection_init", "payload": ["Authorization": "nope"]])
                while try await socket.next() != nil {}
            }
        }
        #expect(bad.close?.closeCode == .init(codeNumber: 4403))
        let faulted = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            emulator.rejectAuthentication(nextConnections: 1)
            return try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                try await socket.send(["type": "connection_init", "payload": ["Authorization": testAPIKey]])
                while try await socket.next() != nil {}
            }
        }
        #expect(faulted.close?.closeCode == .init(codeNumber: 4403))
    }

    @Test func missingInitClosesWith4408OnTheInjectedClock() async throws {
        let clock = ManualClock()
        let result = try await withRunningEmulator(configuration: testConfiguration(), clock: clock) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                await clock.sleepers(atLeast: 1)
                clock.advance(by: .seconds(60))
                while try await socket.next() != nil {}
            }
        }
        #expect(result.close?.closeCode == .init(codeNumber: 4408))
    }
}
