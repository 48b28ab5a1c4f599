import Foundation
import HummingbirdWSClient
import NIOWebSocket
import Testing
@testable import SwitchboardEmulator

@Suite("GraphQL AppSync real-time dialect on /graphql", .timeLimit(.minutes(1)))
struct GraphQLAppSyncDialectTests {
    static let query = #"subscription S($u: ID!) { subscribeRoleChange(userId: $u) { reason } }"#

    static func start(_ id: String, auth: [String: String]) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: ["query": query, "variables": ["u": "u1"]])
        return ["type": "start", "id": id,
                "payload": ["data": String(decoding: data, as: UTF8.self), "extensions": ["authorization": auth]]]
    }

    @Test func startAckDataAsObjectAndStopComplete() async throws {
        let auth = ["host": "h", "x-api-key": testAPIKey]
        let startData = try JSONSerialization.data(withJSONObject: Self.start("sub-1", auth: auth))
        let start = String(decoding: startData, as: UTF8.self)
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws", appSyncHeader: auth) { socket in
                try await socket.send(["type": "connection_init"])
                _ = try await socket.next(ofType: "connection_ack")
                try await socket.sendText(start)
                _ = try await socket.next(ofType: "start_ack")
                try emulator.publish(channel: "vortex-app/user/u1/roleChanged", event: #"{"eventType":"user/roleChanged","reason":"r"}"#)
                _ = try await socket.next(ofType: "data")
                try await socket.send(["type": "stop", "id": "sub-1"])
                _ = try await socket.next(ofType: "complete")
                #expect(emulator.subscriptionCount == 0)
            }
        }
        let ack = try #require(result.first("connection_ack"))
        #expect((ack.object["payload"] as? [String: Any])?["connectionTimeoutMs"] as? Int == 300_000)
        #expect(result.first("start_ack")?.id == "sub-1")
        #expect(result.first("data")?.result("subscribeRoleChange")?["reason"] as? String == "r")
        #expect(result.first("complete")?.id == "sub-1")
    }

    @Test func headerSubprotocolCarriesTheConnectAuth() async throws {
        let auth = ["host": "h", "x-api-key": testAPIKey]
        let startData = try JSONSerialization.data(withJSONObject: Self.start("sub-1", auth: auth))
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: try appSyncHeaderSubprotocol(auth)) { socket in
                try await socket.send(["type": "connection_init"])
                _ = try await socket.next(ofType: "connection_ack")
                try await socket.sendText(String(decoding: startData, as: UTF8.self))
                _ = try await socket.next(ofType: "start_ack")
            }
        }
        // The AppSync dialect (not the Apollo one, which would answer `connection_ack` then `ka`).
        #expect(result.frames.map(\.type) == ["connection_ack", "start_ack"])
        #expect((result.first("connection_ack")?.object["payload"] as? [String: Any])?["connectionTimeoutMs"] as? Int == 300_000)
        let refused = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: try appSyncHeaderSubprotocol(["host": "h", "x-api-key": "bad"])) { socket in
                try await socket.send(["type": "connection_init"])
                while try await socket.next() != nil {}
            }
        }
        let errors = (refused.first("connection_error")?.object["payload"] as? [String: Any])?["errors"] as? [[String: Any]]
        #expect(errors?.first?["errorType"] as? String == "UnauthorizedException")
    }

    @Test func invalidDocumentIsAnErrorWithAnErrorsList() async throws {
        let auth = ["host": "h", "x-api-key": testAPIKey]
        let request = try JSONSerialization.data(withJSONObject: ["query": #"subscription { subscribeRoleChange(userId: "u1") { nope } }"#])
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws", appSyncHeader: auth) { socket in
                try await socket.send(["type": "connection_init"])
                _ = try await socket.next(ofType: "connection_ack")
                try await socket.send(["type": "start", "id": "bad", "payload": [
                    "data": String(decoding: request, as: UTF8.self), "extensions": ["authorization": auth],
                ]])
                _ = try await socket.next(ofType: "error")
                #expect(emulator.subscriptionCount == 0)
            }
        }
        let error = try #require(result.first("error"))
        #expect(error.id == "bad")
        let errors = try #require((error.object["payload"] as? [String: Any])?["errors"] as? [[String: Any]])
        #expect(errors.first?["message"] as? String == #"Cannot query field "nope" on type "RoleChange"."#)
        #expect(result.first("start_ack") == nil)
    }

    @Test func badHeaderIsRefusedWithConnectionError() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-ws", appSyncHeader: ["host": "h", "x-api-key": "bad"]) { socket in
                try await socket.send(["type": "connection_init"])
                while try await socket.next() != nil {}
            }
        }
        let error = try #require(result.first("connection_error"))
        let errors = (error.object["payload"] as? [String: Any])?["errors"] as? [[String: Any]]
        #expect(errors?.first?["errorType"] as? String == "UnauthorizedException")
    }

    @Test func dropFaultReachesGraphQLConnections() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withGraphQLSocket(endpoints, subprotocol: "graphql-transport-ws") { socket in
                _ = try await socket.initialize(token: testAPIKey)
                #expect(emulator.dropAllConnections(code: 4000, reason: "bye") == 1)
                while try await socket.next() != nil {}
            }
        }
        #expect(result.close?.closeCode == .init(codeNumber: 4000))
    }
}
