import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

extension GraphQLTransport {
    /// Time since the driver started, on the injected clock.
    struct Elapsed: Sendable {
        let now: @Sendable () -> Duration
        let sleep: @Sendable (Duration) async throws -> Void

        init<C: Clock>(_ clock: C) where C.Duration == Duration {
            let origin = clock.now
            now = { origin.duration(to: clock.now) }
            sleep = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        }
    }

    /// The mutable side of one `run()`: the state machine and the open socket.
    struct DriverState {
        var machine: GraphQLConnectionStateMachine
        var random: any RandomNumberGenerator & Sendable
        var identity: TransportIdentity?
        var connection: (generation: Int, socket: any WebSocketConnection)?
        var finished = false
    }

    func drive() async {
        let elapsed = Elapsed(configuration.clock)
        var random = configuration.random
        let prefix = Self.idPrefix(dialect: configuration.wireProtocol, random: &random)
        let settings = GraphQLConnectionStateMachine.Settings(
            dialect: configuration.wireProtocol, policy: configuration.reconnectPolicy,
            ackTimeout: configuration.ackTimeout, keepAliveTimeout: configuration.keepAliveTimeout,
            pingInterval: configuration.pingInterval, pongTimeout: configuration.pongTimeout, idPrefix: prefix)
        var driver = DriverState(machine: GraphQLConnectionStateMachine(settings: settings), random: random)
        logger.debug("GraphQL transport running")
        await withDiscardingTaskGroup { group in
            for await input in inputs {
                if case .opened(let generation, let socket, _) = input, driver.machine.currentGeneration != generation {
                    // Opened after it was abandoned: it never delivers anything.
                    await socket.close(code: .normalClosure, reason: "stale connection")
                    continue
                }
                if case .opened(let generation, let socket, _) = input {
                    startReading(socket, generation: generation, elapsed: elapsed)
                }
                let actions = decide(input, driver: &driver, now: elapsed.now())
                for action in actions {
                    await perform(action, driver: &driver, group: &group, elapsed: elapsed)
                }
                if driver.finished { break }
            }
            group.cancelAll()
        }
        if let (_, socket) = driver.connection { await socket.close(code: .normalClosure, reason: "shut down") }
        continuation.finish()
        inputContinuation.finish()
        logger.debug("GraphQL transport stopped")
    }

    private func decide(_ input: Input, driver: inout DriverState, now: Duration) -> [GraphQLConnectionStateMachine.Action] {
        switch input {
        case .connect(let identity):
            driver.identity = identity
            return driver.machine.connectRequested()
        case .disconnect:
            driver.identity = nil
            return driver.machine.disconnectRequested()
        case .subscribe(let request):
            return driver.machine.subscribeRequested(request)
        case .unsubscribe(let key):
            return driver.machine.unsubscribeRequested(key)
        case .shutDown:
            return driver.machine.shutDownRequested()
        case .opened(let generation, let socket, let token):
            driver.connection = (generation, socket)
            logger.debug("socket open", metadata: ["switchboard.connection": "\(generation)"])
            return driver.machine.opened(generation: generation, token: token, now: now)
        case .openFailed(let generation, let error):
            logger.debug("connect failed", metadata: ["switchboard.connection": "\(generation)", "switchboard.error": "\(Self.describe(error))"])
            return driver.machine.openFailed(generation: generation, error: error, now: now, random: &driver.random)
        case .inbound(let generation, .message(let message), let receivedAt):
            guard case .text(let text) = message else {
                metrics.decodeFailures.increment()
                return [.report(.error(SwitchboardError(code: .protocolViolation, message: "binary frame on a GraphQL socket")))]
            }
            do {
                let decoded = try GraphQLCodec(configuration.wireProtocol).decode(text)
                logger.trace("frame in", metadata: ["switchboard.connection": "\(generation)", "switchboard.frame": "\(Self.kind(of: decoded))"])
                // The time the socket delivered the frame, not the time it is handled: a keep-alive
                // deadline counts from the frame's arrival.
                return driver.machine.received(decoded, generation: generation, now: receivedAt, random: &driver.random)
            } catch {
                metrics.decodeFailures.increment()
                logger.debug("undecodable frame", metadata: ["switchboard.error": "\(error)", "switchboard.bytes": "\(text.utf8.count)"])
                return [.report(.error(error.switchboardError))]
            }
        case .inbound(let generation, .closed(let close), _):
            logger.debug("socket closed", metadata: ["switchboard.connection": "\(generation)", "switchboard.close": "\(close.code)"])
            return driver.machine.closed(generation: generation, close: close, failure: nil, now: now, random: &driver.random)
        case .inboundEnded(let generation, let error):
            return driver.machine.closed(generation: generation, close: nil, failure: error, now: now, random: &driver.random)
        case .timer:
            return driver.machine.timerFired(now: now, random: &driver.random)
        case .verifyConnection(let timeout):
            return driver.machine.verifyConnection(timeout: timeout, now: now)
        case .ponged(let generation, let roundTrip, let receivedAt):
            logger.trace("pong", metadata: ["switchboard.connection": "\(generation)", "switchboard.round_trip": "\(roundTrip)"])
            return driver.machine.pongReceived(generation: generation, now: receivedAt)
        case .pingFailed(let generation, let error):
            logger.debug("ping failed", metadata: ["switchboard.connection": "\(generation)", "switchboard.error": "\(Self.describe(error))"])
            return driver.machine.pingFailed(generation: generation, error, now: now)
        }
    }
}
