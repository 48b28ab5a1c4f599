import Foundation
import LegacyServerHarness
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO
import Testing

/// The emulator's legacy `/graphql` answers as a real GraphQL server does: the same conversation,
/// held with strawberry-graphql (`Scripts/legacy-server`) and with the emulator, gives the same
/// frames and closes. Each case is a difference found when the legacy fixtures were first recorded
/// from the real server, fixed in the emulator. Skipped locally, with the reason, when
/// `SWITCHBOARD_LEGACY_SERVER_PYTHON` is unset; CI sets it.
@Suite(
    "The emulator's legacy endpoint answers as a real GraphQL server (strawberry) does",
    .enabled(if: LegacyGraphQLServer.shouldRun, Comment(rawValue: LegacyGraphQLServer.skipReason)),
    // One server process at a time: a dozen Python interpreters starting at once on a loaded CI
    // machine slow every other suite down.
    .serialized, .timeLimit(.minutes(1)))
struct EmulatorMatchesLegacyServerTests {
    static let dialects = ["graphql-ws", "graphql-transport-ws"]
    static let organization = """
        subscription S($orgId: ID!) { subscribeOrganizationState(orgId: $orgId) { orgId licensePhase isFreePlan \
        AIControlSetting { uuid termsAgreement options { key enabled } } } }
        """

    @Test("an enum value outside the schema is null, with the executor's error", arguments: dialects)
    func enumValueOutsideTheSchema(dialect: String) async throws {
        try await compare(
            dialect, queries: [Self.organization], frames: 2,
            legacy: ("subscribeOrganizationState", #"{"orgId":"org-1","licensePhase":"Suspended"}"#),
            appSync: ("organization/licensePhaseChanged", Payload.license("Suspended")))
    }

    @Test("a null in a non-null field nulls the nearest nullable parent", arguments: dialects)
    func nullInANonNullField(dialect: String) async throws {
        try await compare(
            dialect, queries: [Self.organization], frames: 2,
            legacy: ("subscribeOrganizationState", #"{"orgId":"org-1","AIControlSetting":{"uuid":"ai-1","options":[{"key":"person"}]}}"#),
            appSync: ("organization/aiSettingsChanged",
                      #"{"eventType":"organization/aiSettingsChanged","timestamp":"\#(Payload.timestamp)","orgId":"org-1","aiControlSetting":{"uuid":"ai-1","options":[{"key":"person"}]}}"#))
    }

    @Test("a subscription over the limit is refused with the server's error", arguments: dialects)
    func subscriptionLimit(dialect: String) async throws {
        let role = #"subscription { subscribeRoleChange(userId: "user-1") { reason } }"#
        try await compare(dialect, queries: [role, role], frames: 2, maximumSubscriptions: 1)
    }

    @Test("a refused token: the same frames and close", arguments: dialects)
    func refusedToken(dialect: String) async throws {
        try await compare(dialect, queries: [], frames: 1, token: "not-a-token")
    }

    // MARK: The conversation

    /// `@unchecked Sendable`: built by one task and handed back once, then only read.
    struct Conversation: @unchecked Sendable, CustomStringConvertible {
        var frames: [NSDictionary] = []
        var close: WebSocketClose?
        var description: String { "\(frames) close: \(close.map { "\($0.code) \"\($0.reason)\"" } ?? "none")" }
    }

    /// Holds the same conversation with both servers and expects the same frames (`ka` aside,
    /// JSON compared as values) and the same close.
    private func compare(
        _ dialect: String, queries: [String], frames: Int, token: String = EndToEnd.apiKey, maximumSubscriptions: Int = 100,
        legacy: (field: String, json: String)? = nil, appSync: (channel: String, payload: String)? = nil
    ) async throws {
        let real = try await LegacyGraphQLServer.with(
            "EmulatorMatchesLegacyServerTests", tokens: [EndToEnd.apiKey], maximumSubscriptions: maximumSubscriptions
        ) { server in
            try await Self.converse(
                server.url, dialect, token: token, queries: queries, frames: frames,
                subscribed: {
                    while try await server.subscriptionCounts().values.reduce(0, +) < min(queries.count, maximumSubscriptions) {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                },
                publish: {
                    guard let legacy else { return }
                    let argument = legacy.field == "subscribeOrganizationState" ? EndToEnd.orgId : EndToEnd.userId
                    try await server.publish(field: legacy.field, argument: argument, json: legacy.json)
                })
        }
        let configuration = EndToEnd.emulatorConfiguration(keepAliveInterval: .seconds(300), maximumSubscriptions: maximumSubscriptions)
        let emulated = try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            try await Self.converse(
                URL(string: endpoints.graphQLURL)!, dialect, token: token, queries: queries, frames: frames,
                subscribed: {
                    while emulator.subscriptionCount < min(queries.count, maximumSubscriptions) {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                },
                publish: {
                    guard let appSync else { return }
                    _ = try emulator.publish(channel: "vortex-app/user/\(EndToEnd.userId)/\(appSync.channel)", event: appSync.payload)
                })
        }
        #expect(emulated.frames == real.frames, "emulator: \(emulated)\nstrawberry: \(real)")
        #expect(emulated.close == real.close, "emulator: \(emulated)\nstrawberry: \(real)")
    }

    /// Connects, initialises with `token`, subscribes to each query (ids "1", "2", …), waits until
    /// the server holds the subscriptions, publishes, and reads until `frames` frames besides `ka`
    /// have come, or the server closed.
    private static func converse(
        _ url: URL, _ dialect: String, token: String, queries: [String], frames count: Int,
        subscribed: () async throws -> Void, publish: () async throws -> Void
    ) async throws -> Conversation {
        let connection = try await NIOWebSocketConnector().connect(WebSocketRequest(url: url, subprotocols: [dialect]))
        var inbound = connection.inbound.makeAsyncIterator()
        var conversation = Conversation()
        func read() async throws -> Bool {
            while let event = try await inbound.next() {
                switch event {
                case .message(.text(let text)):
                    let frame = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
                    if frame["type"] as? String == "ka" { continue }
                    conversation.frames.append(frame)
                    return true
                case .message(.binary):
                    continue
                case .closed(let close):
                    conversation.close = close
                    return false
                }
            }
            return false
        }
        try await connection.send(.text(#"{"type":"connection_init","payload":{"Authorization":"\#(token)"}}"#))
        guard try await read(), conversation.frames.last?["type"] as? String == "connection_ack" else {
            while try await read() {}
            return conversation
        }
        for (index, query) in queries.enumerated() {
            let frame: [String: Any] = [
                "id": "\(index + 1)", "type": dialect == "graphql-ws" ? "start" : "subscribe",
                "payload": ["query": query, "variables": ["orgId": EndToEnd.orgId]],
            ]
            let text = String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self)
            try await connection.send(.text(text))
        }
        try await subscribed()
        try await publish()
        while conversation.frames.count < count, try await read() {}
        await connection.close(code: .normalClosure, reason: "")
        return conversation
    }
}
