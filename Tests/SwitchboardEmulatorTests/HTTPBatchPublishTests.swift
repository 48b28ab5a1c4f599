import Foundation
import LegacyServerHarness
import Testing
import SwitchboardCore
import SwitchboardSync
@testable import SwitchboardEmulator

/// Posts raw bytes to `/events` and returns the status and decoded body.
func postBatch(
    _ endpoints: SwitchboardEmulator.Endpoints, headers: [String: String] = ["x-api-key": testAPIKey], body: Data
) async throws -> (status: Int, body: [String: Any]) {
    let response = try await LoopbackHTTP.request(
        URL(string: endpoints.batchPublishURL)!, method: "POST",
        headers: [("content-type", "application/json")] + headers.map { ($0.key, $0.value) }, body: Array(body))
    return (response.status, ((try? JSONSerialization.jsonObject(with: response.data)) as? [String: Any]) ?? [:])
}

/// A batch body of `(channel, event)` pairs.
func batchBody(_ events: [(channel: String, event: Any)]) throws -> Data {
    try JSONSerialization.data(withJSONObject: events.map { ["channel": $0.channel, "event": $0.event] })
}

@Suite("Emulator batch publish (POST /events)", .timeLimit(.minutes(1)))
struct HTTPBatchPublishTests {
    static func event(_ n: Int) -> String { #"{"eventType":"user/roleChanged","reason":"r\#(n)"}"# }

    @Test func publishesEveryEventInArrayOrderAcrossChannels() async throws {
        let channels = ["vortex-app/user/u1/roleChanged", "vortex-app/user/u1/planChanged", "vortex-app/org/o1/licenseChanged"]
        let events = (0..<30).map { (channel: channels[($0 * 7) % 3], event: Self.event($0)) }
        let (response, logged) = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            let response = try await postBatch(endpoints, body: try batchBody(events))
            return ((response.status, response.body["published"] as? Int), emulator.loggedEvents.map { ($0.channel, $0.event) })
        }
        #expect(response.0 == 200)
        #expect(response.1 == 30)
        #expect(logged.map(\.0) == events.map(\.channel))
        #expect(logged.map(\.1) == events.map(\.event))
    }

    @Test func reachesAWebSocketSubscriber() async throws {
        let event = Self.event(1)
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/user/u1/*")
                let response = try await postBatch(endpoints, body: try batchBody([("vortex-app/user/u1/roleChanged", event)]))
                #expect(response.status == 200)
                _ = try await socket.next(ofType: "data")
            }
        }
        #expect(result.first("data")?.object["event"] as? String == event)
    }

    /// Each bad batch, with its valid first event, publishes nothing and names the offending item.
    @Test(arguments: [
        (#"{"channel":"vortex-app/a","events":[]}"#, 400, "BadRequestException", "must be a JSON array"),
        ("not json", 400, "BadRequestException", "must be a JSON array"),
        ("[]", 400, "InvalidInputError", "the batch has no events"),
        (#"[GOOD,{"channel":"vortex-app/a"}]"#, 400, "BadRequestException", "events[1]: the body must be"),
        (#"[GOOD,{"channel":7,"event":"{}"}]"#, 400, "BadRequestException", "events[1]: the body must be"),
        (#"[GOOD,{"channel":"vortex-app/a","event":{"inline":true}}]"#, 400, "BadRequestException", "events[1]: event must be a JSON value serialized to a string"),
        (#"[GOOD,{"channel":"vortex-app/a","event":"{nope"}]"#, 400, "BadRequestException", "events[1]: event is not valid JSON"),
        (#"[GOOD,{"channel":"vortex-app/*","event":"{}"}]"#, 400, "BadRequestException", "events[1]: "),
        (#"[GOOD,{"channel":"other-app/a","event":"{}"}]"#, 401, "UnauthorizedException", "events[1]: no namespace other-app"),
    ])
    func badBatchIsRefusedWhole(body: String, status: Int, errorType: String, message: String) async throws {
        let good = String(decoding: try JSONSerialization.data(withJSONObject: ["channel": "vortex-app/a", "event": Self.event(0)]), as: UTF8.self)
        let text = body.replacingOccurrences(of: "GOOD", with: good)
        let (response, logged) = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            let response = try await postBatch(endpoints, body: Data(text.utf8))
            let error = (response.body["errors"] as? [[String: Any]])?.first
            return ((response.status, error?["errorType"] as? String, error?["message"] as? String), emulator.loggedEvents.count)
        }
        #expect(response.0 == status)
        #expect(response.1 == errorType)
        #expect(response.2?.contains(message) == true, "\(response.2 ?? "no message")")
        #expect(logged == 0)
    }

    @Test func tooManyEventsAndTooLargeAnEventAre400() async throws {
        let many = (0...HTTPPublishRoute.maximumBatchEvents).map { (channel: "vortex-app/a", event: Self.event($0) as Any) }
        let large = "\"" + String(repeating: "x", count: PublishValidator.maximumEventBytes) + "\""
        let answers = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            let first = try await postBatch(endpoints, body: try batchBody(many))
            let second = try await postBatch(endpoints, body: try batchBody([("vortex-app/a", large)]))
            return [first, second].map { response in
                let error = (response.body["errors"] as? [[String: Any]])?.first
                return "\(response.status) \(error?["errorType"] as? String ?? "-"): \(error?["message"] as? String ?? "-")"
            } + ["logged \(emulator.loggedEvents.count)"]
        }
        #expect(answers == [
            "400 InvalidInputError: the batch has 1001 events; at most 1000 are accepted",
            "400 EventTooLargeException: events[0]: Transformed event is larger than 240KB",
            "logged 0",
        ])
    }

    @Test func authIsThatOfPostEvent() async throws {
        let statuses = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            let own = try batchBody([("vortex-app/user/u1/roleChanged", Self.event(0))])
            let other = try batchBody([("vortex-app/user/u1/roleChanged", Self.event(1)), ("vortex-app/user/u2/roleChanged", Self.event(2))])
            return [
                try await postBatch(endpoints, headers: [:], body: own).status,
                try await postBatch(endpoints, headers: ["x-api-key": "nope"], body: own).status,
                try await postBatch(endpoints, headers: ["Authorization": makeJWT(sub: "u1")], body: own).status,
                try await postBatch(endpoints, headers: ["Authorization": makeJWT(sub: "u1")], body: other).status,
                emulator.loggedEvents.count,
            ]
        }
        #expect(statuses == [401, 401, 200, 403, 1])
    }
}
