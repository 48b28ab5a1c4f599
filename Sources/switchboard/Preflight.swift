import Foundation
import Logging
import SwitchboardCore

/// The engine of `switchboard check`: connects one transport with the real authorization,
/// subscribes to every target, pings, and reports.
///
/// It runs in three phases, each bounded on the injected clock (tests pass a manual one):
/// 1. **connect**: `connect(as:)` until the transport is connected (acknowledged), within
///    ``answerTimeout``. A refusal, a connection error or the deadline ends the check (exit 2).
/// 2. **subscribe**: every distinct wire subscription at once; each stream is established,
///    rejected (with the server's message) or, after ``answerTimeout``, without an answer.
/// 3. **ping**: the transport's connection check (``ConnectionVerifying``) sends a WebSocket ping;
///    the ``ConnectionProbe`` under the transport sees its round trip, or ``pingTimeout`` passes.
///
/// The transport's reconnect policy should be `.never`: a preflight reports a failed connection,
/// it does not retry it.
struct Preflight: Sendable {
    var targets: [PreflightTarget]
    var identity: TransportIdentity
    var answerTimeout: Duration = .seconds(10)
    var pingTimeout: Duration = .seconds(5)
    var clock: any Clock<Duration> = ContinuousClock()
    var logger = Logger(label: "switchboard.check", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Runs between the connect and the subscribe phases (progress output; tests inject faults).
    var afterConnect: @Sendable () async -> Void = {}

    private enum Input: Sendable {
        case transport(TransportEvent)
        case deadline(generation: Int)
        case ping(ConnectionProbe.PingResult)
    }

    private enum Phase { case connecting, subscribing, pinging, done }

    /// Runs the check.
    /// - Parameters:
    ///   - report: The report to fill in (its header fields set by the caller).
    ///   - makeTransport: Makes the transport over the connector it is given, which wraps the
    ///     caller's real connector with the probe.
    ///   - connector: The real connector.
    /// - Returns: The filled-in report.
    func run(
        into report: PreflightReport, connector: any WebSocketConnector,
        makeTransport: (any WebSocketConnector) throws -> any EventTransport
    ) async throws -> PreflightReport {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        let probe = ConnectionProbe { feed.yield(.ping($0)) }
        let transport = try makeTransport(probe.watching(connector))
        var report = report
        report.subscriptionsAcknowledged = transport.acknowledgesSubscriptions
        report.streams = targets.map { PreflightReport.Stream(stream: $0.stream, address: $0.address) }
        let clock = self.clock
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await transport.run() }
            group.addTask {
                for await event in transport.events { feed.yield(.transport(event)) }
            }
            var generation = 0
            func startDeadline(_ duration: Duration) {
                generation += 1
                let current = generation
                group.addTask {
                    guard (try? await clock.sleep(for: duration)) != nil else { return }
                    feed.yield(.deadline(generation: current))
                }
            }
            let stopwatch = Stopwatch(clock)
            var phase = Phase.connecting
            var lastError: SwitchboardError?
            var answered: Set<SubscriptionKey> = []
            let keys = Set(targets.map(\.request.key))

            func settle(_ key: SubscriptionKey, _ outcome: PreflightReport.Outcome, _ message: String?) {
                for index in targets.indices where targets[index].request.key == key {
                    report.streams[index].outcome = outcome
                    report.streams[index].message = message
                }
            }
            func startPing() {
                guard let verifying = transport as? any ConnectionVerifying else {
                    report.connection.pingError = "the transport cannot ping"
                    phase = .done
                    return
                }
                phase = .pinging
                verifying.verifyConnection(timeout: pingTimeout)
                startDeadline(pingTimeout)
            }
            func fail(_ error: SwitchboardError?) {
                let error = error ?? lastError
                report.connection.error = error.map { FailureText.describe($0) } ?? "the connection ended"
                phase = .done
            }

            logger.debug("connecting", metadata: ["check.transport": "\(transport.kind)"])
            transport.connect(as: identity)
            startDeadline(answerTimeout)
            for await input in inputs {
                switch (phase, input) {
                case (.connecting, .transport(.connectionStateChanged(.connected))):
                    report.connection.established = true
                    report.connection.connectMilliseconds = stopwatch.elapsed().inMilliseconds
                    await afterConnect()
                    phase = .subscribing
                    var requested: Set<SubscriptionKey> = []
                    for target in targets where requested.insert(target.request.key).inserted {
                        do {
                            try transport.subscribe(target.request)
                        } catch {
                            answered.insert(target.request.key)
                            settle(target.request.key, .rejected, FailureText.describe(error))
                        }
                    }
                    if answered == keys { startPing() } else { startDeadline(answerTimeout) }
                case (_, .transport(.connectionStateChanged(.disconnected(let error)))) where phase != .done:
                    fail(error)
                case (_, .transport(.connectionStateChanged(.waitingToReconnect))) where phase != .done:
                    fail(nil)
                case (_, .transport(.subscriptionEstablished(let key))):
                    guard phase == .subscribing, answered.insert(key).inserted else { break }
                    settle(key, .established, nil)
                    if answered == keys { startPing() }
                case (_, .transport(.subscriptionFailed(let key, let error))):
                    // Also after the subscribe phase: a dialect without acknowledgements reports
                    // a refusal after the subscription counted as established.
                    settle(key, .rejected, error.message)
                    if phase == .subscribing, answered.insert(key).inserted, answered == keys { startPing() }
                case (.pinging, .transport(.error(let error))):
                    report.connection.pingError = error.message
                    phase = .done
                case (_, .transport(.error(let error))):
                    lastError = error
                    logger.debug("transport error", metadata: ["check.error": "\(error)"])
                case (.connecting, .deadline(let current)) where current == generation:
                    fail(SwitchboardError(
                        code: .network, message: "no acknowledged connection within \(answerTimeout.shortDescription)"))
                case (.subscribing, .deadline(let current)) where current == generation:
                    for key in keys.subtracting(answered) { settle(key, .noAnswer, "no answer within \(answerTimeout.shortDescription)") }
                    startPing()
                case (.pinging, .deadline(let current)) where current == generation:
                    report.connection.pingError = "no pong within \(pingTimeout.shortDescription)"
                    phase = .done
                case (.pinging, .ping(.success(let roundTrip))):
                    report.connection.pingMilliseconds = roundTrip.inMilliseconds
                    phase = .done
                case (.pinging, .ping(.failure(let error))):
                    report.connection.pingError = error.message
                    phase = .done
                default:
                    break
                }
                if phase == .done { break }
            }
            report.connection.acknowledged = probe.acknowledged
            report.connection.announcedKeepAliveSeconds = probe.announcedKeepAlive.map { $0.inMilliseconds / 1000 }
            report.connection.keepAliveFrames = probe.keepAliveFrames
            transport.shutDown()
            feed.finish()
            group.cancelAll()
            return report
        }
    }
}
