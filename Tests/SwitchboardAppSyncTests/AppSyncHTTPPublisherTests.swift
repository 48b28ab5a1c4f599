import Foundation
import Logging
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardTesting
import Testing

/// An HTTP client that answers from a script and records every request.
private final class ScriptedHTTPClient: AppSyncHTTPClient, @unchecked Sendable {
    enum Answer {
        case respond(Int, String)
        case fail
        /// A failure no retry can cure, as the NIO client reports an untrusted certificate.
        case failPermanently
    }

    private let lock = NSLock()
    private var answers: [Answer]
    private(set) var bodies: [String] = []

    init(_ answers: [Answer]) { self.answers = answers }

    var requestCount: Int { lock.withLock { bodies.count } }

    func post(_ url: URL, headers: [(name: String, value: String)], body: Data) async throws -> (status: Int, body: Data) {
        let answer = lock.withLock { () -> Answer in
            bodies.append(String(decoding: body, as: UTF8.self))
            return answers.isEmpty ? .respond(200, #"{"successful":[],"failed":[]}"#) : answers.removeFirst()
        }
        switch answer {
        case .respond(let status, let text): return (status, Data(text.utf8))
        case .fail: throw URLError(.networkConnectionLost)
        case .failPermanently:
            var error = SwitchboardError(code: .network, message: "the TLS handshake with h:443 failed: not trusted")
            error.isPermanent = true
            throw error
        }
    }
}

private let endpoint = URL(string: "https://example.appsync-api.eu-west-1.amazonaws.com/event")!
private let apiKey: AppSyncHTTPPublisher.Authorization = { _ in [("x-api-key", "da2-test")] }

@Suite("AppSync HTTP publish", .timeLimit(.minutes(1)))
struct AppSyncHTTPPublisherTests {
    @Test("events are checked before anything is sent")
    func validation() async throws {
        let client = ScriptedHTTPClient([])
        let publisher = AppSyncHTTPPublisher(url: endpoint, authorization: apiKey, client: client)
        let cases: [([String], String, SwitchboardError.Code)] = [
            ([#"{"a":1}"#], "vortex-app/user/*", .invalidChannel),
            ([#"{"a":1}"#], "vortex-app/bad_segment", .invalidChannel),
            ([], "vortex-app/a", .publishRejected),
            (["not json"], "vortex-app/a", .publishRejected),
            ([#"""# + String(repeating: "x", count: 240 * 1024) + #"""#], "vortex-app/a", .publishRejected),
        ]
        for (events, channel, code) in cases {
            do {
                _ = try await publisher.publish(events, to: channel)
                Issue.record("expected \(code) for \(channel)")
            } catch let error as SwitchboardError {
                #expect(error.code == code, "\(channel): \(error)")
            }
        }
        #expect(client.requestCount == 0)
    }

    @Test("more than five events go out in ordered batches; indexes refer to the caller's list")
    func batching() async throws {
        let client = ScriptedHTTPClient([
            .respond(200, #"{"successful":[{"identifier":"a","index":0},{"identifier":"b","index":1},{"identifier":"c","index":2},{"identifier":"d","index":3},{"identifier":"e","index":4}],"failed":[]}"#),
            .respond(200, #"{"successful":[{"identifier":"f","index":0}],"failed":[{"identifier":"g","index":1,"code":401,"message":"too big"}]}"#),
        ])
        let publisher = AppSyncHTTPPublisher(url: endpoint, authorization: apiKey, client: client)
        let events = (0..<7).map { #"{"n":\#($0),"path":"a/b"}"# }
        let result = try await publisher.publish(events, to: "/vortex-app/user/u1/roleChanged")
        #expect(client.bodies.count == 2)
        #expect(client.bodies[0] == #"{"channel":"/vortex-app/user/u1/roleChanged","events":["{\"n\":0,\"path\":\"a/b\"}","{\"n\":1,\"path\":\"a/b\"}","{\"n\":2,\"path\":\"a/b\"}","{\"n\":3,\"path\":\"a/b\"}","{\"n\":4,\"path\":\"a/b\"}"]}"#)
        #expect(result.accepted.map(\.index) == [0, 1, 2, 3, 4, 5])
        #expect(result.refused == [.init(identifier: "g", index: 6, code: "401", message: "too big")])
    }

    @Test("network errors and 5xx are retried after the configured delays; 4xx is final")
    func retries() async throws {
        let clock = ManualClock()
        let client = ScriptedHTTPClient([.fail, .respond(503, ""), .respond(200, #"{"successful":[{"identifier":"x","index":0}],"failed":[]}"#)])
        let publisher = AppSyncHTTPPublisher(
            url: endpoint, authorization: apiKey, client: client, retryDelays: [.seconds(1), .seconds(2)], clock: clock)
        async let outcome = publisher.publish([#"{"a":1}"#], to: "vortex-app/a")
        await clock.sleepers(atLeast: 1)
        #expect(client.requestCount == 1)
        clock.advance(by: .seconds(1))
        await clock.sleepers(atLeast: 1)
        #expect(client.requestCount == 2)
        clock.advance(by: .seconds(2))
        #expect(try await outcome.accepted.count == 1)
        #expect(client.requestCount == 3)

        let rejecting = ScriptedHTTPClient([.respond(400, #"{"errors":[{"errorType":"BadRequestException","message":"Invalid Channel"}]}"#)])
        let final = AppSyncHTTPPublisher(url: endpoint, authorization: apiKey, client: rejecting, clock: clock)
        do {
            _ = try await final.publish([#"{"a":1}"#], to: "vortex-app/a")
            Issue.record("expected a rejection")
        } catch let error as SwitchboardError {
            #expect(error.code == .publishRejected)
            #expect(error.message.contains("BadRequestException"))
        }
        #expect(rejecting.requestCount == 1)
    }

    @Test("a failure no retry can cure (an untrusted certificate) ends the publish at once")
    func permanentFailure() async throws {
        let client = ScriptedHTTPClient([.failPermanently, .respond(200, #"{"successful":[],"failed":[]}"#)])
        let publisher = AppSyncHTTPPublisher(
            url: endpoint, authorization: apiKey, client: client, retryDelays: [.seconds(1), .seconds(2)], clock: ManualClock())
        await #expect {
            _ = try await publisher.publish([#"{"a":1}"#], to: "vortex-app/a")
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .network && error.message == "publishing failed, and retrying cannot help: the TLS handshake with h:443 failed: not trusted"
        }
        #expect(client.requestCount == 1)
    }

    @Test("publishes to the emulator over loopback; a bad key is sessionExpired")
    func emulator() async throws {
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: ["dev-key"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let url = URL(string: endpoints.httpURL)!
            let publisher = AppSyncHTTPPublisher(url: url, authorization: { _ in [("x-api-key", "dev-key")] })
            let events = (0..<6).map { #"{"eventType":"user/roleChanged","reason":"r\#($0)"}"# }
            let result = try await publisher.publish(events, to: "vortex-app/user/u1/roleChanged")
            #expect(result.accepted.map(\.index).sorted() == Array(0..<6))
            #expect(result.allAccepted)

            let wrongKey = AppSyncHTTPPublisher(url: url, authorization: { _ in [("x-api-key", "nope")] })
            do {
                _ = try await wrongKey.publish([#"{"a":1}"#], to: "vortex-app/user/u1/roleChanged")
                Issue.record("expected a rejection")
            } catch let error as SwitchboardError {
                #expect(error.code == .sessionExpired)
            }
        }
    }
}
