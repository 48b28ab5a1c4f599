import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardEmulator
import Testing

/// `BackendNotifier` with `transport = appsync` over loopback against the emulator's
/// `/event/realtime`.
@Suite("End to end: AppSync Events transport against the emulator", .timeLimit(.minutes(1)))
struct AppSyncEndToEndTests {
    static func transport(_ authorization: AppSyncAuthorization = .apiKey(EndToEnd.apiKey)) -> EndToEnd.MakeTransport {
        { endpoints, connector, clock in
            AppSyncEventsTransport(
                configuration: .init(
                    realtimeURL: URL(string: endpoints.realtimeURL)!, authorization: authorization,
                    reconnectPolicy: .fixedDelay(.zero, reconnectAfterNormalClose: true), clock: clock),
                connector: connector)
        }
    }

    @Test("all nine channels and the merged streams deliver typed values")
    func allStreams() async throws {
        try await EndToEnd.run(Self.transport()) { try await Scenarios.allStreamsDeliver($0, legacy: false) }
    }

    @Test("a JWT from the session authorizes the user's channels")
    func jwt() async throws {
        try await EndToEnd.run(token: EndToEnd.jwt(subject: EndToEnd.userId), Self.transport(.sessionToken)) {
            try await Scenarios.allStreamsDeliver($0, legacy: false)
        }
    }

    @Test("a server-side drop is recovered automatically")
    func drop() async throws {
        try await EndToEnd.run(Self.transport()) { try await Scenarios.recoversFromDrop($0) }
    }

    @Test("a keep-alive stall is detected within connectionTimeoutMs and recovered")
    func keepAliveStall() async throws {
        // The emulator advertises connectionTimeoutMs = 300000.
        try await EndToEnd.run(Self.transport()) { try await Scenarios.detectsKeepAliveStall($0, deadline: .milliseconds(300_000)) }
    }

    @Test("a rejected subscription leaves the others running")
    func rejectedSubscription() async throws {
        // The emulator allows four subscriptions per connection: the fifth is refused.
        try await EndToEnd.run(maximumSubscriptions: 4, Self.transport()) { h in
            var errors = await h.notifier.errors().makeAsyncIterator()
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            var plans = await h.notifier.planValues().makeAsyncIterator()
            let archive = await h.notifier.archiveValues()
            let devices = await h.notifier.devicePresenceValues()
            try await h.waitForSubscriptions(4)
            let revokes = await h.notifier.revokeValues()
            let error = await errors.next()
            #expect(error?.code == .subscriptionRejected)
            try h.publish("roleChanged", Payload.role("still here"))
            try h.publish("organization/planChanged", Payload.plan(free: true))
            #expect(await roles.next()?.reason == "still here")
            #expect(await plans.next()?.isFreePlan == true)
            withExtendedLifetime((archive, devices, revokes)) {}
        }
    }

    @Test("a rejected token ends in sessionExpired after one refresh")
    func rejectedToken() async throws {
        try await EndToEnd.run(Self.transport()) { try await Scenarios.rejectedTokenExpiresSession($0) }
    }
}
