import Foundation
import Switchboard
import SwitchboardEmulator
import SwitchboardGraphQL
import Testing

/// `BackendNotifier` with `transport = graphql` over loopback against the emulator's `/graphql`.
@Suite("End to end: GraphQL transport against the emulator", .timeLimit(.minutes(1)))
struct GraphQLEndToEndTests {
    static let dialects: [GraphQLProtocol] = [.graphQLWS, .graphQLTransportWS, .appSyncGraphQL]

    static let keepAliveTimeout = Duration.seconds(30)
    static let pingInterval = Duration.seconds(15)
    static let pongTimeout = Duration.seconds(10)

    /// How long, on the transport's clock, a silent server goes unnoticed at most: graphql-ws
    /// waits `keepAliveTimeout` for the next `ka`; graphql-transport-ws has no `ka`, so the loss
    /// is a `pong` missing `pongTimeout` after the ping due `pingInterval` after the ack; AppSync
    /// waits the ack's `connectionTimeoutMs` (the emulator advertises 300000).
    static func keepAliveDeadline(_ dialect: GraphQLProtocol) -> Duration {
        switch dialect {
        case .graphQLWS: keepAliveTimeout
        case .graphQLTransportWS: pingInterval + pongTimeout
        case .appSyncGraphQL: .milliseconds(300_000)
        }
    }

    /// The transport for `dialect`. AppSync GraphQL presents the token as `x-api-key` when
    /// `apiKey` is set (the harness's default token is the API key), else as `Authorization`.
    static func transport(_ dialect: GraphQLProtocol, apiKey: Bool = true, pingInterval: Duration? = nil) -> EndToEnd.MakeTransport {
        { endpoints, connector, clock in
            GraphQLSubscriber(
                configuration: .init(
                    url: URL(string: endpoints.graphQLURL)!, wireProtocol: dialect,
                    reconnectPolicy: .fixedDelay(.zero, reconnectAfterNormalClose: true),
                    keepAliveTimeout: Self.keepAliveTimeout, pingInterval: pingInterval, pongTimeout: Self.pongTimeout,
                    appSyncHost: endpoints.host, appSyncAuthorization: apiKey ? .apiKey : .authorizationHeader,
                    clock: clock, logger: EndToEnd.logger("e2e.graphql")),
                connector: connector)
        }
    }

    @Test("all five subscriptions feed every stream with the same typed values", arguments: dialects)
    func allStreams(dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(Self.transport(dialect)) { try await Scenarios.allStreamsDeliver($0, legacy: true) }
    }

    @Test("a server-side drop is recovered", arguments: dialects)
    func drop(dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(Self.transport(dialect)) { try await Scenarios.recoversFromDrop($0) }
    }

    @Test("a lost keep-alive (ka, or pong after a ping) is noticed on the transport's clock and recovered", arguments: dialects)
    func keepAliveLoss(dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(Self.transport(dialect, pingInterval: Self.pingInterval)) {
            try await Scenarios.detectsKeepAliveStall($0, deadline: Self.keepAliveDeadline(dialect))
        }
    }

    @Test("a rejected subscription stays local", arguments: dialects)
    func rejectedSubscription(dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(token: EndToEnd.jwt(subject: "someone-else"), Self.transport(dialect, apiKey: false)) {
            try await Scenarios.rejectedSubscriptionIsLocal($0)
        }
    }

    @Test("a rejected token ends in sessionExpired after one refresh", arguments: dialects)
    func rejectedToken(dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(Self.transport(dialect)) { try await Scenarios.rejectedTokenExpiresSession($0) }
    }
}
