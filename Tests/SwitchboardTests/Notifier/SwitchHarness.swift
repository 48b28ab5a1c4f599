import Foundation
import MetricsTestKit
import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

/// What the transports of one test did, in the order they did it, across all of them.
enum SwitchLogEntry: Equatable, Sendable {
    /// `run()` started; `alsoActive` are the other transports running or connected at that moment.
    case runStarted(TransportKind, alsoActive: [TransportKind])
    case runReturned(TransportKind)
    /// `connect(as:)` was called; `alsoActive` as above.
    case connect(TransportKind, userId: String, alsoActive: [TransportKind])
    case shutDown(TransportKind)
}

/// A ``ScriptedTransport`` that writes its lifecycle into a log shared by every transport of a
/// test, and can hold its shutdown so that it keeps reporting after a switch away from it began.
final class ProbedTransport: EventTransport {
    let scripted: ScriptedTransport
    private let log: Observed<[SwitchLogEntry]>
    private let registry: Observed<[ProbedTransport]>
    private let holdsShutDown: Bool

    init(kind: TransportKind, log: Observed<[SwitchLogEntry]>, registry: Observed<[ProbedTransport]>, holdsShutDown: Bool) {
        scripted = ScriptedTransport(kind: kind)
        self.log = log
        self.registry = registry
        self.holdsShutDown = holdsShutDown
    }

    var kind: TransportKind { scripted.kind }
    var events: TransportEvents { scripted.events }

    /// The other transports that are running or connected now.
    private var othersActive: [TransportKind] {
        registry.value.filter { $0 !== self && ($0.scripted.state.isRunning || $0.scripted.state.isConnected) }.map(\.kind)
    }

    func run() async throws {
        let others = othersActive
        log.update { $0.append(.runStarted(kind, alsoActive: others)) }
        defer { log.update { $0.append(.runReturned(kind)) } }
        try await scripted.run()
    }

    func connect(as identity: TransportIdentity) {
        let others = othersActive
        log.update { $0.append(.connect(kind, userId: identity.userId, alsoActive: others)) }
        scripted.connect(as: identity)
    }

    func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        scripted.plan(streams: streams, identity: identity, namespace: namespace)
    }

    func disconnect() { scripted.disconnect() }
    func subscribe(_ request: SubscriptionRequest) throws { try scripted.subscribe(request) }
    func unsubscribe(_ key: SubscriptionKey) { scripted.unsubscribe(key) }

    func shutDown() {
        log.update { $0.append(.shutDown(kind)) }
        if !holdsShutDown { scripted.shutDown() }
    }

    /// Completes a held shutdown: `run()` returns.
    func releaseShutDown() { scripted.shutDown() }
}

/// How the harness's transport factory behaves for the next call.
enum FactoryMode: Sendable {
    case normal
    /// Throws.
    case failing
    /// Makes a transport of the other kind.
    case wrongKind
}

/// A notifier with a transport factory over ``ProbedTransport``s, running for `body`.
struct SwitchHarness {
    let notifier: BackendNotifier
    let session: SessionSource
    let broker: RecordingEventBroker
    let metrics: TestMetrics
    let log: Observed<[SwitchLogEntry]>
    private let made: Observed<[ProbedTransport]>
    private let mode: LockedValue<FactoryMode>
    private let holdShutDown: LockedValue<Bool>

    /// The transports made so far, in order (the initial one first).
    var transports: [ProbedTransport] { made.value }
    var factoryCalls: Int { transports.count }

    /// Sets how the factory behaves from now on.
    func setFactory(_ mode: FactoryMode) { self.mode.withLock { $0 = mode } }
    /// Whether transports made from now on hold their shutdown until released.
    func setHoldShutDown(_ hold: Bool) { holdShutDown.withLock { $0 = hold } }

    static func make(_ kind: TransportKind, holdShutDown: Bool = false) throws -> SwitchHarness {
        let log = Observed<[SwitchLogEntry]>([])
        let made = Observed<[ProbedTransport]>([])
        let mode = LockedValue(FactoryMode.normal)
        let hold = LockedValue(holdShutDown)
        let factory: BackendNotifier.TransportFactory = { kind in
            switch mode.withLock({ $0 }) {
            case .failing:
                throw SwitchboardError(code: .network, message: "no \(kind) endpoint reachable")
            case .wrongKind:
                let other: TransportKind = kind == .graphql ? .appsync : .graphql
                return ProbedTransport(kind: other, log: log, registry: Observed([]), holdsShutDown: false)
            case .normal:
                let transport = ProbedTransport(kind: kind, log: log, registry: made, holdsShutDown: hold.withLock { $0 })
                made.update { $0.append(transport) }
                return transport
            }
        }
        let session = SessionSource()
        let broker = RecordingEventBroker()
        let metrics = TestMetrics()
        let notifier = try BackendNotifier(
            selection: TransportSelection(kind: kind, source: .code), session: session, broker: broker.broker,
            metricsFactory: metrics, transportFactory: factory)
        return SwitchHarness(
            notifier: notifier, session: session, broker: broker, metrics: metrics, log: log, made: made, mode: mode,
            holdShutDown: hold)
    }

    static func run(_ kind: TransportKind, holdShutDown: Bool = false, _ body: (SwitchHarness) async throws -> Void) async throws {
        let harness = try make(kind, holdShutDown: holdShutDown)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await harness.notifier.run() }
            do {
                try await body(harness)
            } catch {
                await harness.notifier.shutDown()
                for transport in harness.transports { transport.releaseShutDown() }
                throw error
            }
            await harness.notifier.shutDown()
            for transport in harness.transports { transport.releaseShutDown() }
            try await group.waitForAll()
        }
    }

    /// Waits until the `index`th transport made holds exactly `keys`, all acknowledged.
    func waitForSubscriptions(_ keys: Set<SubscriptionKey>, on index: Int) async {
        await made.wait { $0.count > index }
        await transports[index].scripted.waitUntil { Set($0.subscriptions.keys) == keys && $0.established.isSuperset(of: keys) }
    }

    /// The value of a counter, 0 if it was never created.
    func counter(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        (try? metrics.expectCounter(label, dimensions))?.totalValue ?? 0
    }
}
