import Foundation
import Logging
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardTesting
import Testing

/// Issue 20: the trace-level secrets check with IAM. SigV4 signs the connect request, every
/// subscribe and every publish with the access key's secret and the session token; neither the
/// secret, nor the session token, nor any signature made from them reaches a log line of the
/// transport or the notifier above it.
@Suite("End to end: no IAM secret in any log line at trace level", .timeLimit(.minutes(1)))
struct SecretsHygieneIAMTests {
    static let accessKeyId = "AKIAIOSFODNN7EXAMPLE"
    static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    static let sessionToken = "IQoJb3JpZ2luX2VjEXAMPLE-session-token-value"

    @Test("the secret access key, the session token and every signature stay out of the logs")
    func noIAMSecretsLogged() async throws {
        let log = CapturedLog()
        let connector = ScriptedWebSocketConnector()
        let transport = AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: URL(string: "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!,
                authorization: .iam(region: "eu-west-1") {
                    AWSCredentials(accessKeyId: Self.accessKeyId, secretAccessKey: Self.secret, sessionToken: Self.sessionToken)
                },
                publishTimeout: .seconds(30), clock: ManualClock(), logger: log.logger("appsync")),
            connector: connector)
        let notifier = BackendNotifier(
            transport: transport,
            session: SessionSource(.signedIn(userId: "u-1", orgId: "o-1") { _ in "unused-with-iam" }),
            logger: log.logger("notifier"))
        let roles = await notifier.roleValues()
        var signatures: [String] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            let attempt = try #require(await connector.nextAttempt())
            signatures += Self.signatures(in: attempt.request.subprotocols.joined(separator: " "))
            let connection = try #require(attempt.connection)
            #expect(await connection.nextSentText() == #"{"type":"connection_init"}"#)
            connection.serverSends(text: #"{"type":"connection_ack","connectionTimeoutMs":300000}"#)

            let subscribe = try #require(await connection.nextSentText())
            signatures += Self.signatures(in: subscribe)
            let subscription = try #require(Self.field("id", in: subscribe))
            connection.serverSends(text: #"{"type":"subscribe_success","id":"\#(subscription)"}"#)

            async let published = transport.publish([#"{"eventType":"user/roleChanged","reason":"p"}"#], to: "vortex-app/user/u-1/roleChanged")
            let publish = try #require(await connection.nextSentText())
            signatures += Self.signatures(in: publish)
            let publishID = try #require(Self.field("id", in: publish))
            connection.serverSends(text: #"{"type":"publish_success","id":"\#(publishID)","successful":[{"identifier":"e","index":0}],"failed":[]}"#)
            #expect(try await published.allAccepted)

            let event = #"{\"eventType\":\"user/roleChanged\",\"reason\":\"promoted\"}"#
            connection.serverSends(text: #"{"type":"data","id":"\#(subscription)","event":"\#(event)"}"#)
            var iterator = roles.makeAsyncIterator()
            #expect(await iterator.next()?.reason == "promoted")
            await notifier.shutDown()
            try await group.waitForAll()
        }

        #expect(signatures.count == 3, "a signature on the connect request, the subscribe and the publish")
        let lines = log.all
        for label in ["appsync", "notifier"] {
            #expect(lines.contains { $0.hasPrefix("\(label) ") }, "nothing logged by \(label)")
        }
        #expect(lines.contains { $0.contains("publish") }, "the publish was logged at all")
        var secrets = [("the secret access key", Self.secret), ("the session token", Self.sessionToken)]
        secrets += signatures.map { ("a signature", $0) }
        for (name, secret) in secrets {
            let leaks = lines.filter { $0.contains(secret) }
            #expect(leaks.isEmpty, "\(name) in \(leaks.count) lines, e.g. \(leaks.first ?? "")")
        }
    }

    /// The hex signatures (`Signature=…`) in a frame, or in the base64url-encoded header of a
    /// connect request's subprotocols.
    static func signatures(in text: String) -> [String] {
        var sources = [text]
        for part in text.split(separator: " ") where part.hasPrefix("header-") {
            var base64 = part.dropFirst("header-".count).replacingOccurrences(of: "-", with: "+")
                .replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            if let decoded = Data(base64Encoded: base64) { sources.append(String(decoding: decoded, as: UTF8.self)) }
        }
        return sources.flatMap { source in
            source.ranges(of: /Signature=[0-9a-f]{64}/).map { String(source[$0].dropFirst("Signature=".count)) }
        }
    }

    /// A top-level string field of a JSON frame.
    static func field(_ name: String, in frame: String) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(frame.utf8)) as? [String: Any]
        return object?[name] as? String
    }
}
