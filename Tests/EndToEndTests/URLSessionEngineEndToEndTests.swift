import Foundation
import Switchboard
import SwitchboardGraphQL
import Testing
import URLSessionTaskBridge

/// The scenarios that exercise the socket (connect, delivery, a dropped connection, a refused
/// token, a silent server, TLS) on both transports, run through `URLSessionWebSocketConnector`'s
/// logic: the Apple platforms' engine, its tasks bridged to the NIO engine here.
@Suite("End to end: both transports through URLSessionWebSocketConnector's logic", .timeLimit(.minutes(1)))
struct URLSessionEngineEndToEndTests {
    @Test("AppSync Events: all nine channels and the merged streams deliver typed values")
    func appSyncAllStreams() async throws {
        try await EndToEnd.run(engine: .urlSession, AppSyncEndToEndTests.transport()) {
            try await Scenarios.allStreamsDeliver($0, legacy: false)
        }
    }

    @Test("AppSync Events: over wss, trusting the emulator's certificate")
    func appSyncOverTLS() async throws {
        try await EndToEnd.run(engine: .urlSession, tls: true, AppSyncEndToEndTests.transport()) { h in
            try await Scenarios.recoversFromDrop(h)
        }
    }

    @Test("AppSync Events: a keep-alive stall is detected within connectionTimeoutMs and recovered")
    func appSyncKeepAliveStall() async throws {
        try await EndToEnd.run(engine: .urlSession, AppSyncEndToEndTests.transport()) {
            try await Scenarios.detectsKeepAliveStall($0, deadline: .milliseconds(300_000))
        }
    }

    @Test("AppSync Events: a rejected token ends in sessionExpired after one refresh")
    func appSyncRejectedToken() async throws {
        try await EndToEnd.run(engine: .urlSession, AppSyncEndToEndTests.transport()) {
            try await Scenarios.rejectedTokenExpiresSession($0)
        }
    }

    @Test("GraphQL: all five subscriptions feed every stream", arguments: GraphQLEndToEndTests.dialects)
    func graphQLAllStreams(_ dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(engine: .urlSession, GraphQLEndToEndTests.transport(dialect)) {
            try await Scenarios.allStreamsDeliver($0, legacy: true)
        }
    }

    @Test("GraphQL: a server-side drop is recovered", arguments: GraphQLEndToEndTests.dialects)
    func graphQLDrop(_ dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(engine: .urlSession, GraphQLEndToEndTests.transport(dialect)) {
            try await Scenarios.recoversFromDrop($0)
        }
    }

    @Test("GraphQL: a lost keep-alive is noticed on the transport's clock and recovered", arguments: GraphQLEndToEndTests.dialects)
    func graphQLKeepAlive(_ dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(
            engine: .urlSession, GraphQLEndToEndTests.transport(dialect, pingInterval: GraphQLEndToEndTests.pingInterval)
        ) {
            try await Scenarios.detectsKeepAliveStall($0, deadline: GraphQLEndToEndTests.keepAliveDeadline(dialect))
        }
    }

    @Test("GraphQL: a rejected token ends in sessionExpired after one refresh", arguments: GraphQLEndToEndTests.dialects)
    func graphQLRejectedToken(_ dialect: GraphQLProtocol) async throws {
        try await EndToEnd.run(engine: .urlSession, GraphQLEndToEndTests.transport(dialect)) {
            try await Scenarios.rejectedTokenExpiresSession($0)
        }
    }
}
