import Foundation
import LegacyServerHarness
import SwitchboardCore
import Testing
@testable import SwitchboardEmulator

/// The answers of the server-sent events routes that come without a stream. The stream itself
/// (ready, subscribed, subscribe_error, data, faults) is exercised end to end by the example
/// transport's conformance run (Examples/ServerSentEventsTransport, in .ci/run).
@Suite("Server-sent events routes", .timeLimit(.minutes(1)))
struct ServerSentEventsRoutesTests {
    func status(
        _ method: String, _ url: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> Int {
        try await LoopbackHTTP.request(
            URL(string: url)!, method: method, headers: headers.map { ($0.key, $0.value) }, body: body.map { Array($0.utf8) }
        ).status
    }

    @Test("refused credentials are 401; a subscription needs a live stream (404) and {id, channel} (400)")
    func answersWithoutAStream() async throws {
        let statuses = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            let stream = endpoints.serverSentEventsURL
            let user = ["Authorization": makeJWT(sub: "u1")]
            var statuses: [Int] = []
            statuses.append(try await status("GET", stream))
            statuses.append(try await status("GET", stream, headers: ["Authorization": "not-a-jwt"]))
            emulator.rejectAuthentication(nextConnections: 1)
            statuses.append(try await status("GET", stream, headers: user))
            statuses.append(try await status(
                "POST", stream + "/sse-99/subscriptions", headers: user, body: #"{"id":"a","channel":"vortex-app/user/u1/roleChanged"}"#))
            statuses.append(try await status("POST", stream + "/sse-99/subscriptions", headers: user, body: #"{"channel":"x"}"#))
            statuses.append(try await status("POST", stream + "/sse-99/subscriptions", body: #"{"id":"a","channel":"x"}"#))
            statuses.append(try await status("DELETE", stream + "/sse-99/subscriptions/a", headers: user))
            return statuses
        }
        #expect(statuses == [401, 401, 401, 404, 400, 401, 404])
    }
}
