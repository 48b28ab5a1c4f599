import Foundation
import LegacyServerHarness
import HTTPTypes
import HummingbirdWSClient
import SwitchboardCore
import Testing
@testable import SwitchboardEmulator

/// Posts to a control endpoint and returns the status and the `connections` count, if any.
func postControl(_ endpoints: SwitchboardEmulator.Endpoints, _ path: String) async throws -> (Int, Int?) {
    let response = try await LoopbackHTTP.request(URL(string: endpoints.controlURL + path)!, method: "POST")
    return (response.status, JSONText.decodeObject(response.data)?["connections"] as? Int)
}

@Suite("Control endpoints and in-process publish", .timeLimit(.minutes(1)))
struct ControlEndpointTests {
    @Test func rejectAuthAndResetOverHTTP() async throws {
        let types = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            var types: [String?] = []
            func attempt() async throws {
                let result = try await withAppSyncSocket(endpoints, auth: apiKeyAuth) { socket in
                    _ = try await socket.initialize()
                }
                types.append(result.frames.first?.type)
            }
            #expect(try await postControl(endpoints, "/reject-auth?count=2").0 == 200)
            try await attempt()
            try await attempt()
            try await attempt()
            _ = try await postControl(endpoints, "/reject-auth")
            try await attempt()
            _ = try await postControl(endpoints, "/reset")
            try await attempt()
            return types
        }
        #expect(types == ["connection_error", "connection_error", "connection_ack", "connection_error", "connection_ack"])
    }

    @Test func garbageAndStallOverHTTPCountConnections() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            let counts = LockedValueBox<[Int?]>([])
            let socket = try await withReadySocket(endpoints) { socket in
                let garbage = try await postControl(endpoints, "/garbage")
                _ = try await socket.next()
                let stall = try await postControl(endpoints, "/stall?ms=0")
                counts.set([garbage.1, stall.1])
            }
            return (socket, counts.get())
        }
        #expect(result.1 == [1, 1])
        #expect(result.0.frames.last?.text == ConnectionWriter.garbageFrame)
    }

    @Test func badControlParametersAre400() async throws {
        let statuses = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            [
                try await postControl(endpoints, "/stall").0,
                try await postControl(endpoints, "/latency?ms=-1").0,
                try await postControl(endpoints, "/latency?ms=abc").0,
                try await postControl(endpoints, "/latency?ms=0").0,
            ]
        }
        #expect(statuses == [400, 400, 400, 200])
    }

    @Test func inProcessPublishRejectsBadInputWithTypedErrors() async throws {
        let emulator = SwitchboardEmulator(configuration: testConfiguration())
        #expect(throws: SwitchboardError.self) { try emulator.publish(channel: "vortex-app/*", event: "{}") }
        let tooBig = "\"" + String(repeating: "y", count: 240 * 1024) + "\""
        let error = #expect(throws: SwitchboardError.self) { try emulator.publish(channel: "vortex-app/a", event: tooBig) }
        #expect(error?.code == .publishRejected)
        #expect(throws: SwitchboardError.self) { try emulator.publish(channel: "vortex-app/a", event: "{") }
        #expect(try emulator.publish(channel: "vortex-app/a", event: "{}") == 0)
    }

    @Test func connectionWithoutTheEventsSubprotocolIsNotUpgraded() async throws {
        let failed = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            do {
                var headers = HTTPFields()
                headers[.secWebSocketProtocol] = "graphql-ws"
                try await WebSocketClient.connect(
                    url: endpoints.realtimeURL, configuration: .init(additionalHeaders: headers), logger: silentLogger
                ) { _, _, _ in }
                return false
            } catch {
                return true
            }
        }
        #expect(failed)
    }

    @Test func connectionCountTracksOpenSockets() async throws {
        let counts = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            let inside = LockedValueBox<Int>(-1)
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
                inside.set(emulator.connectionCount * 10 + emulator.subscriptionCount)
            }
            return inside.get()
        }
        #expect(counts == 11)
    }

    @Test("GET /control/status (and POST) count connections and subscriptions, for a driver in another process")
    func statusOverHTTP() async throws {
        let answers = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            let answers = LockedValueBox<[[String: Int]]>([])
            @Sendable func status(_ method: String) async throws -> [String: Int] {
                let data = try await LoopbackHTTP.request(URL(string: endpoints.controlURL + "/status")!, method: method).data
                return (JSONText.decodeObject(data) ?? [:]).compactMapValues { $0 as? Int }
            }
            let before = try await status("GET")
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
                answers.set([before, try await status("GET"), try await status("POST")])
            }
            return answers.get()
        }
        #expect(answers == [
            ["connections": 0, "subscriptions": 0], ["connections": 1, "subscriptions": 1], ["connections": 1, "subscriptions": 1],
        ])
    }
}
