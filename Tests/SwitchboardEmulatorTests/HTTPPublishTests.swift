import Foundation
import LegacyServerHarness
import Testing
import SwitchboardCore
@testable import SwitchboardEmulator

/// Posts to `/event` and returns the status and decoded body.
func postEvent(
    _ endpoints: SwitchboardEmulator.Endpoints, headers: [String: String], body: [String: Any]
) async throws -> (status: Int, body: [String: Any]) {
    let response = try await LoopbackHTTP.request(
        URL(string: endpoints.httpURL)!, method: "POST",
        headers: [("content-type", "application/json")] + headers.map { ($0.key, $0.value) },
        body: Array(try JSONSerialization.data(withJSONObject: body)))
    return (response.status, ((try? JSONSerialization.jsonObject(with: response.data)) as? [String: Any]) ?? [:])
}

@Suite("AppSync Events HTTP publish", .timeLimit(.minutes(1)))
struct HTTPPublishTests {
    let event = #"{"eventType":"user/roleChanged","reason":"promoted"}"#

    @Test func publishReachesWebSocketSubscriberWithResponseShape() async throws {
        let event = self.event
        let (result, response) = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            let box = LockedValueBox<(Int, Int, Int)?>(nil)
            let socket = try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/user/u1/*")
                let response = try await postEvent(
                    endpoints, headers: ["x-api-key": testAPIKey],
                    body: ["channel": "/vortex-app/user/u1/roleChanged", "events": [event, "not json"]])
                box.set((
                    response.status, (response.body["successful"] as? [Any])?.count ?? -1,
                    (response.body["failed"] as? [[String: Any]])?.first?["index"] as? Int ?? -1))
                _ = try await socket.next(ofType: "data")
            }
            return (socket, box.get())
        }
        #expect(response?.0 == 200)
        #expect(response?.1 == 1)
        #expect(response?.2 == 1)
        #expect(result.first("data")?.object["event"] as? String == event)
    }

    @Test func badKeyIs401() async throws {
        let event = self.event
        let response = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            let r = try await postEvent(endpoints, headers: ["x-api-key": "nope"], body: ["channel": "vortex-app/a", "events": [event]])
            return (r.status, (r.body["errors"] as? [[String: Any]])?.first?["errorType"] as? String)
        }
        #expect(response.0 == 401)
        #expect(response.1 == "UnauthorizedException")
    }

    @Test func sixEventsBadChannelAndWildcardAre400() async throws {
        let event = self.event
        let statuses = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            let key = ["x-api-key": testAPIKey]
            return [
                try await postEvent(endpoints, headers: key, body: ["channel": "vortex-app/a", "events": Array(repeating: event, count: 6)]).status,
                try await postEvent(endpoints, headers: key, body: ["channel": "vortex-app/a_b", "events": [event]]).status,
                try await postEvent(endpoints, headers: key, body: ["channel": "vortex-app/*", "events": [event]]).status,
                try await postEvent(endpoints, headers: key, body: ["channel": "vortex-app/a", "events": [String]()]).status,
            ]
        }
        #expect(statuses == [400, 400, 400, 400])
    }

    @Test func jwtUserMayPostOnlyToOwnChannel() async throws {
        let event = self.event
        let statuses = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            let auth = ["Authorization": makeJWT(sub: "u1")]
            return [
                try await postEvent(endpoints, headers: auth, body: ["channel": "vortex-app/user/u1/roleChanged", "events": [event]]).status,
                try await postEvent(endpoints, headers: auth, body: ["channel": "vortex-app/user/u2/roleChanged", "events": [event]]).status,
                try await postEvent(
                    endpoints, headers: ["Authorization": makeJWT(sub: "u1", expiresIn: -1)],
                    body: ["channel": "vortex-app/user/u1/roleChanged", "events": [event]]).status,
            ]
        }
        #expect(statuses == [200, 403, 401])
    }
}

/// A tiny Sendable box for values computed inside a socket closure.
final class LockedValueBox<Value: Sendable>: Sendable {
    private let storage: LockedValue<Value>
    init(_ value: Value) { storage = LockedValue(value) }
    func set(_ value: Value) { storage.withLock { $0 = value } }
    func get() -> Value { storage.withLock { $0 } }
}
