import Foundation
import Observation
import Switchboard
import SwitchboardGraphQL
import Testing

/// `NotifierStatus` over real transports against the emulator: the "established" signal comes
/// from the wire (AppSync `subscribe_success`, AppSync GraphQL `start_ack`; the legacy dialects,
/// which acknowledge nothing, once the subscribe is sent on an acknowledged connection).
@Suite("End to end: NotifierStatus against the emulator", .timeLimit(.minutes(1)))
struct NotifierStatusEndToEndTests {
    enum Wire: String, CaseIterable, CustomStringConvertible {
        case appsync, graphQLWS, graphQLTransportWS, appSyncGraphQL
        var description: String { rawValue }
        var transport: EndToEnd.MakeTransport {
            switch self {
            case .appsync: AppSyncEndToEndTests.transport()
            case .graphQLWS: GraphQLEndToEndTests.transport(.graphQLWS)
            case .graphQLTransportWS: GraphQLEndToEndTests.transport(.graphQLTransportWS)
            case .appSyncGraphQL: GraphQLEndToEndTests.transport(.appSyncGraphQL)
            }
        }
    }

    @Test("connected, the role stream established on the wire, then the time its event came", arguments: Wire.allCases)
    func established(wire: Wire) async throws {
        try await EndToEnd.run(wire.transport) { h in
            let status = await NotifierStatus()
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            let following = Task { await status.follow(h.notifier) }
            await status.until { $0.connectionState == .connected && $0.status(of: .role).isEstablished }
            #expect(await status.status(of: .role) == StreamStatus(isRequested: true, isEstablished: true, lastEventAt: nil))
            try await h.waitForSubscriptions(1)
            try h.publish("roleChanged", Payload.role("promoted"))
            #expect(await roles.next()?.reason == "promoted")
            await status.until { $0.status(of: .role).lastEventAt != nil }
            following.cancel()
            await following.value
        }
    }
}

extension NotifierStatus {
    /// Suspends until `predicate` holds, woken by observation (no polling); returns early when
    /// the test is cancelled (its time limit).
    func until(_ predicate: @MainActor (NotifierStatus) -> Bool) async {
        while !predicate(self), !Task.isCancelled {
            let (changed, continuation) = AsyncStream<Void>.makeStream()
            withObservationTracking {
                _ = (connectionState, lastError, streams)
            } onChange: {
                continuation.finish()
            }
            if predicate(self) { return }
            for await _ in changed {}
        }
    }
}
