import Foundation
import LegacyServerHarness
import Switchboard
import SwitchboardCore
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// `BackendNotifier` with `transport = graphql` against a real GraphQL server: strawberry-graphql
/// serving contract §4 (`Scripts/legacy-server`), so the legacy transport is proven against a
/// GraphQL executor and protocol handlers that are not the project's own. Skipped locally, with
/// the reason, when `SWITCHBOARD_LEGACY_SERVER_PYTHON` is unset; CI sets it, and without it these
/// tests fail there.
@Suite(
    "End to end: the legacy transport against a real GraphQL server (strawberry)",
    .enabled(if: LegacyGraphQLServer.shouldRun, Comment(rawValue: LegacyGraphQLServer.skipReason)),
    // One server process at a time: a dozen Python interpreters starting at once on a loaded CI
    // machine slow every other suite down.
    .serialized, .timeLimit(.minutes(1)))
struct LegacyServerEndToEndTests {
    static let dialects: [GraphQLProtocol] = [.graphQLWS, .graphQLTransportWS]

    @Test("all five subscriptions feed every stream with the typed values", arguments: dialects)
    func allStreams(dialect: GraphQLProtocol) async throws {
        try await LegacyEndToEnd.run(dialect) { h in
            try await Scenarios.allStreamsDeliver(
                h.notifier, legacy: true, waitForSubscriptions: { try await h.waitForSubscriptions(5) },
                publishAll: {
                    let user = EndToEnd.userId, org = EndToEnd.orgId
                    try await h.server.publish(field: "subscribeDeviceState", argument: user, json: LegacyPayload.presence(online: true))
                    try await h.server.publish(field: "subscribeDeviceState", argument: user, json: LegacyPayload.recording(true))
                    try await h.server.publish(field: "subscribeDeviceState", argument: user, json: LegacyPayload.firmware(7))
                    try await h.server.publish(field: "subscribeArchiveState", argument: user, json: LegacyPayload.archive("a-1", status: "Ready"))
                    try await h.server.publish(field: "subscribeOrganizationState", argument: org, json: LegacyPayload.license("GracePeriod"))
                    try await h.server.publish(field: "subscribeOrganizationState", argument: org, json: LegacyPayload.plan(free: false))
                    try await h.server.publish(field: "subscribeOrganizationState", argument: org, json: LegacyPayload.aiSettings("ai-1"))
                    try await h.server.publish(field: "subscribeRoleChange", argument: user, json: LegacyPayload.role("promoted"))
                    try await h.server.publish(field: "subscribeUserTokenRevoke", argument: user, json: LegacyPayload.revoke("req-1"))
                })
        }
    }

    @Test("a server drop (1011) is recovered: reconnect, resubscribe, deliver", arguments: dialects)
    func drop(dialect: GraphQLProtocol) async throws {
        try await LegacyEndToEnd.run(dialect) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            try await h.waitForSubscriptions(1)
            try await h.server.publish(field: "subscribeRoleChange", argument: EndToEnd.userId, json: LegacyPayload.role("before"))
            #expect(await roles.next()?.reason == "before")
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            let dropped = try await h.server.subscriptionCounts().keys.max() ?? 0
            #expect(try await h.server.dropAll(code: 1011, reason: "server restart") == 1)
            while let state = await states.next() { if state != .connected { break } }
            while let state = await states.next() { if state == .connected { break } }
            // The server forgets the dropped connection's subscription; the new one's is counted.
            try await h.waitForSubscriptions(1, onConnectionAfter: dropped)
            try await h.server.publish(field: "subscribeRoleChange", argument: EndToEnd.userId, json: LegacyPayload.role("after"))
            #expect(await roles.next()?.reason == "after")
        }
    }

    @Test("a rejected token ends in sessionExpired after one refresh", arguments: dialects)
    func rejectedToken(dialect: GraphQLProtocol) async throws {
        try await LegacyEndToEnd.run(dialect, acceptedTokens: []) { h in
            let roles = await h.notifier.roleValues()
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            var expired: SwitchboardError?
            while let state = await states.next() {
                if case .disconnected(let error?) = state, error.code == .sessionExpired {
                    expired = error
                    break
                }
                h.clock.advance(by: .seconds(1))
            }
            #expect(expired != nil)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a token rejected while connected is refused at the reconnect: sessionExpired", arguments: dialects)
    func tokenRejectedAfterADrop(dialect: GraphQLProtocol) async throws {
        try await LegacyEndToEnd.run(dialect) { h in
            let roles = await h.notifier.roleValues()
            try await h.waitForSubscriptions(1)
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            try await h.server.rejectToken(EndToEnd.apiKey)
            try await h.server.dropAll(code: 1011, reason: "server restart")
            var expired = false
            while let state = await states.next() {
                if case .disconnected(let error?) = state, error.code == .sessionExpired {
                    expired = true
                    break
                }
                h.clock.advance(by: .seconds(1))
            }
            #expect(expired)
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a subscription over the server's limit is refused alone; the others deliver", arguments: dialects)
    func subscriptionLimit(dialect: GraphQLProtocol) async throws {
        try await LegacyEndToEnd.run(dialect, maximumSubscriptions: 1) { h in
            var errors = await h.notifier.errors().makeAsyncIterator()
            var plans = await h.notifier.planValues().makeAsyncIterator()
            try await h.waitForSubscriptions(1)
            let roles = await h.notifier.roleValues()
            let error = await errors.next()
            #expect(error?.code == .subscriptionRejected, "\(String(describing: error))")
            #expect(error?.message.contains("Subscription limit reached") == true, "\(String(describing: error))")
            try await h.server.publish(field: "subscribeOrganizationState", argument: EndToEnd.orgId, json: LegacyPayload.plan(free: true))
            #expect(await plans.next()?.isFreePlan == true)
            withExtendedLifetime(roles) {}
        }
    }
}

extension LegacyServerEndToEndTests {
    @Test("a partial result (a license phase outside the schema, nulled by the server) delivers the value and reports the server's error on its stream",
          arguments: dialects)
    func partialResult(dialect: GraphQLProtocol) async throws {
        try await LegacyEndToEnd.run(dialect) { h in
            var errors = await h.notifier.errors().makeAsyncIterator()
            var plans = await h.notifier.planValues().makeAsyncIterator()
            let licenses = await h.notifier.licenseValues()
            try await h.waitForSubscriptions(1)
            // graphql-core cannot serialise "Mystery" as a LicensePhase: it nulls the field and
            // sends the result with `data` and `errors`.
            try await h.server.publish(
                field: "subscribeOrganizationState", argument: EndToEnd.orgId,
                json: #"{"orgId":"org-1","licensePhase":"Mystery","isFreePlan":true}"#)
            #expect(await plans.next()?.isFreePlan == true, "the value is delivered")
            let error = await errors.next()
            #expect(error?.code == .partialResult, "\(String(describing: error))")
            #expect(error?.message.hasPrefix("plan:") == true, "names the stream: \(String(describing: error))")
            #expect(error?.message.contains("LicensePhase") == true, "carries the server's words: \(String(describing: error))")
            // The subscription goes on.
            try await h.server.publish(field: "subscribeOrganizationState", argument: EndToEnd.orgId, json: LegacyPayload.plan(free: false))
            #expect(await plans.next()?.isFreePlan == false)
            withExtendedLifetime(licenses) {}
        }
    }
}

/// A notifier on the legacy transport (NIO engine) against a ``LegacyGraphQLServer``.
struct LegacyEndToEnd {
    let server: LegacyGraphQLServer
    let notifier: BackendNotifier
    /// The transport's clock: reconnect delays and keep-alive deadlines run on it.
    let clock: ManualClock

    static func run(
        _ dialect: GraphQLProtocol, acceptedTokens: [String] = [EndToEnd.apiKey], maximumSubscriptions: Int = 100,
        _ body: (LegacyEndToEnd) async throws -> Void
    ) async throws {
        try await LegacyGraphQLServer.with(
            "LegacyServerEndToEndTests", tokens: acceptedTokens, maximumSubscriptions: maximumSubscriptions
        ) { server in
            let clock = ManualClock()
            let transport = GraphQLSubscriber(
                configuration: .init(
                    url: server.url, wireProtocol: dialect,
                    reconnectPolicy: .fixedDelay(.zero, reconnectAfterNormalClose: true),
                    clock: clock, logger: EndToEnd.logger("e2e.legacy-server")),
                connector: NIOWebSocketConnector())
            let session = SessionSource(.signedIn(userId: EndToEnd.userId, orgId: EndToEnd.orgId) { _ in EndToEnd.apiKey })
            let notifier = BackendNotifier(transport: transport, session: session)
            let harness = LegacyEndToEnd(server: server, notifier: notifier, clock: clock)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifier.run() }
                do {
                    try await body(harness)
                } catch {
                    await notifier.shutDown()
                    throw error
                }
                await notifier.shutDown()
                try await group.waitForAll()
            }
        }
    }

    /// Waits until one connection numbered above `previous` holds `count` subscriptions (polling
    /// the server every few real milliseconds).
    func waitForSubscriptions(_ count: Int, onConnectionAfter previous: Int = 0) async throws {
        while try await !server.subscriptionCounts().contains(where: { $0.key > previous && $0.value >= count }) {
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
