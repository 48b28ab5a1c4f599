import Foundation
import Logging
import MetricsTestKit
import Switchboard
import SwitchboardAppSync
import SwitchboardEmulator
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// `BackendNotifier` with `transport = appsync` over loopback against the emulator's
/// `/event/realtime`.
@Suite("End to end: AppSync Events transport against the emulator", .timeLimit(.minutes(1)))
struct AppSyncEndToEndTests {
    static func transport(
        _ authorization: AppSyncAuthorization = .apiKey(EndToEnd.apiKey), connectionLifetime: Duration? = nil,
        metrics: TestMetrics? = nil
    ) -> EndToEnd.MakeTransport {
        { endpoints, connector, clock in
            AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: endpoints.realtimeURL)!, authorization: authorization,
                    reconnectPolicy: .fixedDelay(.zero, reconnectAfterNormalClose: true), connectionLifetime: connectionLifetime,
                    clock: clock, metricsFactory: metrics),
                connector: connector)
        }
    }

    @Test("all nine channels and the merged streams deliver typed values")
    func allStreams() async throws {
        try await EndToEnd.run(Self.transport()) { try await Scenarios.allStreamsDeliver($0, legacy: false) }
    }

    @Test("over wss, trusting the emulator's self-signed certificate")
    func overTLS() async throws {
        try await EndToEnd.run(tls: true, Self.transport()) { h in
            #expect(h.endpoints.realtimeURL.hasPrefix("wss://"))
            try await Scenarios.allStreamsDeliver(h, legacy: false)
        }
    }

    @Test("over wss, a client that does not trust the certificate gets a clear network error, not a hang")
    func untrustedCertificate() async throws {
        try await EndToEnd.run(tls: true, { endpoints, _, clock in
            AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: endpoints.realtimeURL)!, authorization: .apiKey(EndToEnd.apiKey), reconnectPolicy: .never,
                    clock: clock),
                connector: NIOWebSocketConnector())  // system roots only
        }) { h in
            let roles = await h.notifier.roleValues()
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            var failure: SwitchboardError?
            while let state = await states.next() {
                if case .disconnected(let error?) = state {
                    failure = error
                    break
                }
            }
            #expect(failure?.code == .network, "\(String(describing: failure))")
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a JWT from the session authorizes the user's channels")
    func jwt() async throws {
        try await EndToEnd.run(token: EndToEnd.jwt(subject: EndToEnd.userId), Self.transport(.sessionToken)) {
            try await Scenarios.allStreamsDeliver($0, legacy: false)
        }
    }

    @Test("with an API key, a session signed in without a token provider connects and delivers")
    func apiKeyWithoutTokenProvider() async throws {
        try await EndToEnd.run(token: nil, Self.transport()) { try await Scenarios.allStreamsDeliver($0, legacy: false) }
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

    @Test("the connection is replaced before its lifetime ends: no event lost, none repeated, no state change")
    func replacement() async throws {
        // The lifetime (60 s) is shorter than the keep-alive timeout (300 s), so stepping the
        // manual clock past it fires only the replacement.
        let metrics = TestMetrics()
        try await EndToEnd.run(Self.transport(connectionLifetime: .seconds(60), metrics: metrics)) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            let states = await h.notifier.connectionStates()
            try await h.waitForSubscriptions(1)
            // Publish before, throughout and after the replacement: until the new socket has
            // taken over, then 30 more.
            let replacements = { (try? metrics.expectCounter("switchboard.appsync.replacements").totalValue) ?? 0 }
            let publisher = Task { () -> Int in
                var n = 0
                func publishNext() async throws {
                    try h.publish("roleChanged", Payload.role("n-\(n)"))
                    n += 1
                    try await Task.sleep(for: .milliseconds(2))
                }
                for _ in 0..<30 { try await publishNext() }
                h.clock.advance(by: .seconds(60))
                while replacements() == 0 { try await publishNext() }
                for _ in 0..<30 { try await publishNext() }
                return n
            }
            let total = try await publisher.value
            var reasons: [String] = []
            while reasons.count < total, let role = await roles.next() { reasons.append(role.reason ?? "?") }
            #expect(reasons == (0..<total).map { "n-\($0)" })
            #expect(try metrics.expectCounter("switchboard.appsync.replacements").totalValue == 1)
            #expect(try metrics.expectCounter("switchboard.appsync.reconnects").totalValue == 0)
            await h.notifier.shutDown()
            var seen: [ConnectionState] = []
            for await state in states { seen.append(state) }
            let afterConnected = seen.drop { $0 != .connected }.dropFirst()
            #expect(afterConnected.allSatisfy { $0 == .connected || $0 == .idle || $0 == .shutDown }, "consumers saw no reconnect: \(seen)")
        }
    }

    @Test("publishes over the socket and receives its own events; per-event results come back")
    func publishOverSocket() async throws {
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [EndToEnd.apiKey]), logger: Logger(label: "e2e", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let transport = AppSyncEventsSubscriber(
                configuration: .init(realtimeURL: URL(string: endpoints.realtimeURL)!, authorization: .apiKey(EndToEnd.apiKey)),
                connector: NIOWebSocketConnector())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await transport.run() }
                var events = transport.events.makeAsyncIterator()
                transport.connect(as: TransportIdentity(userId: "u", orgId: "o", tokens: .constant("")))
                try transport.subscribe(SubscriptionRequest(key: "room", target: .channel("vortex-app/rooms/*")))
                while let event = await events.next(), event != .subscriptionEstablished("room") {}
                let texts = [#"{"text":"<b>hi</b> & Grüße 🚀"}"#, #"{"n":2}"#, "3"]
                let result = try await transport.publish(texts, to: "vortex-app/rooms/lobby")
                #expect(result.allAccepted && result.accepted.map(\.index) == [0, 1, 2])
                var received: [String] = []
                while received.count < texts.count, let event = await events.next() {
                    if case .received(let envelope) = event { received.append(String(decoding: envelope.payload, as: UTF8.self)) }
                }
                #expect(received == texts)
                await #expect { try await transport.publish(["{}"], to: "unknown-namespace/a") } throws: {
                    ($0 as? SwitchboardError)?.code == .sessionExpired || ($0 as? SwitchboardError)?.code == .publishRejected
                }
                transport.shutDown()
            }
            withExtendedLifetime(emulator) {}
        }
    }
}
