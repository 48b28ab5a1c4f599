import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// The app comes back to a stalled connection: `resume()` gets events flowing at once, where the
/// transport on its own would wait out its keep-alive window and then the reconnect delay.
/// The transports run on a manual clock that the test never moves, so no deadline, keep-alive
/// or reconnect delay can have passed: whatever recovers, recovers without waiting.
@Suite("End to end: suspend and resume against a stalled emulator", .timeLimit(.minutes(1)))
struct AppLifecycleEndToEndTests {
    enum Transport: String, CaseIterable, Sendable {
        case appsync, graphqlWS, graphqlTransportWS
    }

    /// A reconnect delay far longer than the test may take: a recovery through it would hang.
    static let reconnectDelay = Duration.seconds(30)

    static func transport(_ kind: Transport) -> EndToEnd.MakeTransport {
        { endpoints, connector, clock in
            switch kind {
            case .appsync:
                AppSyncEventsSubscriber(
                    configuration: .init(
                        realtimeURL: URL(string: endpoints.realtimeURL)!, authorization: .apiKey(EndToEnd.apiKey),
                        reconnectPolicy: .fixedDelay(reconnectDelay, reconnectAfterNormalClose: true), clock: clock),
                    connector: connector)
            case .graphqlWS, .graphqlTransportWS:
                GraphQLSubscriber(
                    configuration: .init(
                        url: URL(string: endpoints.graphQLURL)!,
                        wireProtocol: kind == .graphqlWS ? .graphQLWS : .graphQLTransportWS,
                        reconnectPolicy: .fixedDelay(reconnectDelay, reconnectAfterNormalClose: true),
                        keepAliveTimeout: .seconds(60), clock: clock, logger: EndToEnd.logger("e2e.graphql")),
                    connector: connector)
            }
        }
    }

    @Test("after resume(), a stalled connection is replaced at once and events flow again", arguments: Transport.allCases)
    func resumeAfterStall(kind: Transport) async throws {
        try await EndToEnd.run(Self.transport(kind)) { h in
            let legacy = kind != .appsync
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            try await h.waitForSubscriptions(1)
            try await publishUntilReceived("before", to: h, legacy: legacy, from: &roles)
            let start = h.clock.now

            // The server goes silent on the open connection (a dead path, or a sleeping radio).
            #expect(h.emulator.stallConnections(for: .seconds(3600)) >= 1)
            await h.notifier.suspend()
            await h.waitForState { $0 != .connected }
            await h.notifier.resume()
            await h.waitForState { $0 == .connected }
            try await publishUntilReceived("after resume", to: h, legacy: legacy, from: &roles)
            #expect(h.clock.now == start, "nothing waited on the transport's clock")
        }
    }

    @Test("after a change of interface, a stalled connection fails its check and is replaced at once",
          arguments: Transport.allCases)
    func pathChangeAfterStall(kind: Transport) async throws {
        let paths = NetworkPathSource(.satisfied(.wifi))
        let checkTimeout = Duration.seconds(2)
        try await EndToEnd.run(
            configuration: .init(networkPaths: paths, connectionCheckTimeout: checkTimeout), Self.transport(kind)
        ) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            try await h.waitForSubscriptions(1)
            try await publishUntilReceived("before", to: h, legacy: kind != .appsync, from: &roles)
            let start = h.clock.now

            #expect(h.emulator.stallConnections(for: .seconds(3600)) >= 1)
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            #expect(await states.next() == .connected)
            paths.update(.satisfied(.cellular))
            // The check's ping is armed with its deadline on the transport's manual clock: move
            // the clock by exactly that much, once the deadline is there.
            while h.clock.nextDeadline.map({ $0 > start.advanced(by: checkTimeout) }) ?? true {
                try await Task.sleep(for: .milliseconds(2))
            }
            h.clock.advance(by: checkTimeout)
            while let state = await states.next(), state != .connected {}
            try await publishUntilReceived("after path change", to: h, legacy: kind != .appsync, from: &roles)
            #expect(h.clock.now == start.advanced(by: checkTimeout),
                    "only the check's deadline passed: no keep-alive window, no reconnect delay")
        }
    }

    /// Publishes a role change until the consumer gets it (a new subscription may still be on
    /// its way, and the stalled one may still count on the server), and checks it is that one.
    func publishUntilReceived(
        _ reason: String, to h: EndToEnd, legacy: Bool, from roles: inout AsyncStream<RoleChangeOutput>.Iterator
    ) async throws {
        let publisher = Task {
            while !Task.isCancelled {
                try? h.publish("roleChanged", Payload.role(reason))
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { publisher.cancel() }
        while let role = await roles.next() {
            if role.reason == reason { return }
        }
        Issue.record("the role stream ended before \(reason) arrived (legacy: \(legacy))")
    }
}
