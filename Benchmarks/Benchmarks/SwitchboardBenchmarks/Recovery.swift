import Benchmark
import Foundation
import NIOConcurrencyHelpers
import Switchboard
import SwitchboardCore
import SwitchboardEmulator

enum RecoveryMetric {
    static let time = BenchmarkMetric.custom("µs to all resubscribed", polarity: .prefersSmaller, useScalingFactor: false)
    static let subscriptions = BenchmarkMetric.custom("subscriptions", polarity: .prefersLarger, useScalingFactor: false)
}

/// The time from a server-side drop (the emulator closes every connection with 1011) to every
/// subscription acknowledged again on the new connection, with a zero-delay reconnect policy.
/// A consumer holds each of the nine per-channel streams. The notifier covers them with five
/// wire subscriptions on both transports: on AppSync Events the device and organization
/// families each share one wildcard channel (`…/device/*`), and the legacy schema has five
/// root fields. `graphql-ws` has no per-subscription acknowledgement, so there a subscription
/// counts as established when its `start` is sent.
func registerRecovery() {
    for kind in [TransportKind.appsync, .graphql] {
        Benchmark(
            "Recovery \(kind), zero-delay reconnect",
            configuration: .init(metrics: [RecoveryMetric.time, RecoveryMetric.subscriptions], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 20)
        ) { benchmark in
            let (time, subscriptions) = try await Recovery.run(kind)
            Report.record(benchmark, RecoveryMetric.time, Int((time.seconds * 1e6).rounded()))
            Report.record(benchmark, RecoveryMetric.subscriptions, subscriptions)
        }
    }
}

enum Recovery {
    /// The emulator's subscription count once it has not changed for 300 ms.
    static func settledSubscriptions(_ emulator: SwitchboardEmulator) async throws -> Int {
        var count = 0
        var stable = 0
        while stable < 30 || count == 0 {
            try await Task.sleep(for: .milliseconds(10))
            let now = emulator.subscriptionCount
            stable = now == count ? stable + 1 : 0
            count = now
        }
        return count
    }

    static func run(_ kind: TransportKind) async throws -> (Duration, Int) {
        try await withRunningEmulator(configuration: Rig.emulatorConfiguration()) { emulator, endpoints in
            let observed = NIOLockedValueBox<ObservedTransport?>(nil)
            let notifier = Rig.notifier(kind, port: endpoints.port, reconnect: .fixedDelay(.zero)) { transport in
                let wrapper = ObservedTransport(transport)
                observed.withLockedValue { $0 = wrapper }
                return wrapper
            }
            let transport = observed.withLockedValue { $0! }
            return try await Rig.running(notifier) {
                // Hold a consumer of each of the nine per-channel streams.
                let streams: [any AsyncSequence & Sendable] = [
                    await notifier.devicePresenceValues(), await notifier.deviceRecordingValues(),
                    await notifier.deviceFirmwareValues(), await notifier.archiveValues(),
                    await notifier.licenseValues(), await notifier.planValues(), await notifier.aiSettingsValues(),
                    await notifier.roleValues(), await notifier.revokeValues(),
                ]
                // The notifier plans the fewest subscriptions that cover the nine streams; wait
                // until the server holds them all and the transport saw each acknowledged.
                let expected = try await Recovery.settledSubscriptions(emulator)
                try await Rig.wait("the first subscriptions") { transport.established.withLockedValue { $0.count } >= expected }
                let clock = ContinuousClock()
                transport.established.withLockedValue { $0 = .init() }
                let dropped = clock.now
                guard emulator.dropAllConnections(code: 1011, reason: "server restart") == 1 else {
                    throw BenchmarkFailure("expected one connection to drop")
                }
                try await Rig.wait("resubscription", interval: .microseconds(200)) {
                    transport.established.withLockedValue { $0.count } >= expected
                }
                let last = transport.established.withLockedValue { $0.last! }
                withExtendedLifetime(streams) {}
                return (dropped.duration(to: last), expected)
            }
        }
    }
}

/// Forwards to a transport and notes when each subscription acknowledgement passes by on its
/// way to the notifier (public `EventTransport` API only; no hook in the library).
final class ObservedTransport: EventTransport {
    struct Established: Sendable {
        var count = 0
        var last: ContinuousClock.Instant?
    }

    let base: any EventTransport
    let established = NIOLockedValueBox(Established())
    let events: TransportEvents
    private let sink: TransportEvents.Continuation

    init(_ base: any EventTransport) {
        self.base = base
        (events, sink) = TransportEvents.makeStream()
    }

    var kind: TransportKind { base.kind }
    var acknowledgesSubscriptions: Bool { base.acknowledgesSubscriptions }

    func run() async throws {
        let base = self.base, sink = self.sink, established = self.established
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in base.events {
                    if case .subscriptionEstablished = event {
                        let now = ContinuousClock.now
                        established.withLockedValue { $0.count += 1; $0.last = now }
                    }
                    sink.yield(event)
                }
                sink.finish()
            }
            try await base.run()
            try await group.waitForAll()
        }
    }

    func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        base.plan(streams: streams, identity: identity, namespace: namespace)
    }

    func connect(as identity: TransportIdentity) { base.connect(as: identity) }
    func disconnect() { base.disconnect() }
    func subscribe(_ request: SubscriptionRequest) throws { try base.subscribe(request) }
    func unsubscribe(_ key: SubscriptionKey) { base.unsubscribe(key) }
    func shutDown() { base.shutDown() }
}
