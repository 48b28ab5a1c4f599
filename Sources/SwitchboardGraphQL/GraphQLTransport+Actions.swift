import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

extension GraphQLTransport {
    func perform(
        _ action: GraphQLConnectionStateMachine.Action, driver: inout DriverState,
        group: inout DiscardingTaskGroup, elapsed: Elapsed
    ) async {
        switch action {
        case .open(let generation, let reason):
            guard let identity = driver.identity else { return }
            let configuration = configuration
            let connector = connector
            let inputs = inputContinuation
            if reason == .refreshAfterRejection || generation > 1 { metrics.reconnects.increment() }
            if reason == .refreshAfterRejection {
                logger.notice("credentials rejected; connecting once more with a refreshed token",
                              metadata: ["switchboard.connection": "\(generation)"])
            }
            group.addTask {
                do {
                    let token = try await identity.tokens.token(for: reason)
                    let request = try configuration.request(token: token)
                    let socket: any WebSocketConnection
                    do {
                        socket = try await connector.connect(request)
                    } catch {
                        throw SwitchboardError.connectFailure(error)
                    }
                    inputs.yield(.opened(generation: generation, connection: socket, token: token))
                } catch {
                    inputs.yield(.openFailed(generation: generation, error: error))
                }
            }
        case .send(let generation, let message):
            guard let (current, socket) = driver.connection, current == generation else { return }
            await send(message, on: socket, generation: generation, identity: driver.identity)
        case .close(let generation, let code, let reason):
            guard let (current, socket) = driver.connection, current == generation else { return }
            driver.connection = nil
            logger.debug("closing socket", metadata: ["switchboard.connection": "\(generation)", "switchboard.close": "\(code)"])
            await socket.close(code: code, reason: reason)
        case .scheduleTimer(let instant):
            let inputs = inputContinuation
            group.addTask {
                do {
                    try await elapsed.sleep(instant)
                    inputs.yield(.timer)
                } catch {
                    // Cancelled: the transport is stopping.
                }
            }
        case .report(let event):
            if case .connectionStateChanged(let state) = event {
                logger.debug("connection state", metadata: ["switchboard.state": "\(state)"])
                if state == .connected { metrics.connections.increment() }
            }
            continuation.yield(event)
        case .deliver(let key, let payload):
            metrics.events.increment()
            switch LegacyResults.envelope(from: payload, subscription: key, receivedAt: Date()) {
            case .event(let envelope):
                continuation.yield(.received(envelope))
            case .nothing(let reason):
                logger.debug("result carries no event; ignored", metadata: [
                    "switchboard.subscription": "\(key)", "switchboard.reason": "\(reason)"])
            }
        case .finish:
            driver.finished = true
        case .pingSocket(let generation):
            let inputs = inputContinuation
            guard let (current, socket) = driver.connection, current == generation else {
                inputs.yield(.pingFailed(generation: generation, SwitchboardError(code: .network, message: "the connection is already closed")))
                return
            }
            logger.debug("checking the connection", metadata: ["switchboard.connection": "\(generation)"])
            group.addTask {
                do {
                    let roundTrip = try await socket.sendPing(Data())
                    inputs.yield(.ponged(generation: generation, roundTrip: roundTrip, receivedAt: elapsed.now()))
                } catch let error as SwitchboardError {
                    inputs.yield(.pingFailed(generation: generation, error))
                } catch {
                    inputs.yield(.pingFailed(generation: generation, SwitchboardError(
                        code: .network, message: "the ping failed: \(Self.describe(error))")))
                }
            }
        case .checkPassed(let generation):
            logger.debug("connection check passed: the connection is kept", metadata: ["switchboard.connection": "\(generation)"])
        }
    }

    /// Encodes and sends one frame. Never logs the frame's text: it may carry a token.
    private func send(_ message: GraphQLClientMessage, on socket: any WebSocketConnection, generation: Int,
                      identity: TransportIdentity?) async {
        var message = message
        if case .subscribe(let id, let operation, _) = message {
            metrics.subscriptions.increment()
            if configuration.wireProtocol.capabilities.authorizesEachStart, let identity {
                do {
                    let token = try await identity.tokens.token(for: .subscribe)
                    message = .subscribe(id: id, operation: operation,
                                         authorization: configuration.appSyncAuthorizationObject(token: token))
                } catch {
                    logger.debug("no token for a start; sending without one", metadata: ["switchboard.error": "\(Self.describe(error))"])
                }
            }
        }
        do {
            let text = try GraphQLCodec(configuration.wireProtocol).encode(message)
            logger.trace("frame out", metadata: ["switchboard.connection": "\(generation)", "switchboard.frame": "\(Self.kind(of: message))"])
            try await socket.send(.text(text))
        } catch {
            // The reader sees the socket end and the machine decides what follows.
            logger.debug("send failed", metadata: ["switchboard.error": "\(Self.describe(error))"])
        }
    }
}
