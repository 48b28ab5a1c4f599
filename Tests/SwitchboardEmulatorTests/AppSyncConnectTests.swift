import Foundation
import Testing
@testable import SwitchboardEmulator

@Suite("AppSync Events connect and auth", .timeLimit(.minutes(1)))
struct AppSyncConnectTests {
    @Test func headerSubprotocolAPIKeyGetsAckWithTopLevelTimeout() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withAppSyncSocket(endpoints, auth: apiKeyAuth) { socket in
                _ = try await socket.initialize()
            }
        }
        let ack = try #require(result.first("connection_ack"))
        #expect(ack.object["connectionTimeoutMs"] as? Int == 300_000)
        #expect(ack.object["payload"] == nil)
    }

    @Test func requestHeaderAuthIsAccepted() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withAppSyncSocket(endpoints, headerAuth: ["x-api-key": testAPIKey]) { socket in
                _ = try await socket.initialize()
            }
        }
        #expect(result.frames.map(\.type) == ["connection_ack"])
    }

    @Test func badAPIKeyGetsConnectionError() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withAppSyncSocket(endpoints, auth: ["x-api-key": "wrong"]) { socket in
                try await socket.send(["type": "connection_init"])
                while try await socket.next() != nil {}
            }
        }
        let error = try #require(result.first("connection_error"))
        #expect(error.firstErrorType == "UnauthorizedException")
        #expect(result.first("connection_ack") == nil)
    }

    @Test func missingCredentialsGetConnectionError() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withAppSyncSocket(endpoints) { socket in
                try await socket.send(["type": "connection_init"])
                while try await socket.next() != nil {}
            }
        }
        #expect(result.first("connection_error")?.firstErrorType == "UnauthorizedException")
    }

    @Test func validJWTConnects() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withAppSyncSocket(endpoints, auth: ["Authorization": makeJWT(sub: "u1")]) { socket in
                _ = try await socket.initialize()
            }
        }
        #expect(result.frames.first?.type == "connection_ack")
    }

    @Test func expiredJWTIsRefused() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withAppSyncSocket(endpoints, auth: ["Authorization": makeJWT(sub: "u1", expiresIn: -10)]) { socket in
                try await socket.send(["type": "connection_init"])
                while try await socket.next() != nil {}
            }
        }
        #expect(result.first("connection_error")?.firstErrorType == "UnauthorizedException")
    }

    @Test func jwtSignedWithAnotherSecretIsRefused() async throws {
        let forged = makeJWT(sub: "u1", secret: Array("other".utf8))
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withAppSyncSocket(endpoints, auth: ["Authorization": "Bearer " + forged]) { socket in
                try await socket.send(["type": "connection_init"])
                while try await socket.next() != nil {}
            }
        }
        #expect(result.first("connection_error") != nil)
    }

    @Test func endpointsNameTheBoundPort() async throws {
        let endpoints = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in endpoints }
        #expect(endpoints.port > 0)
        #expect(endpoints.realtimeURL == "ws://127.0.0.1:\(endpoints.port)/event/realtime")
        #expect(endpoints.httpURL == "http://127.0.0.1:\(endpoints.port)/event")
        #expect(endpoints.graphQLURL == "ws://127.0.0.1:\(endpoints.port)/graphql")
    }
}
