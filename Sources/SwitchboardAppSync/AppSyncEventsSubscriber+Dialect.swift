import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

/// AppSync Events for the shared ``/SwitchboardCore/TransportDriver``: how a socket is opened
/// (credentials in the subprotocol), the codec, the authorizer that signs each subscribe and
/// publish, how event texts become envelopes, and publishing over the socket (its own inputs and
/// the continuations that wait for the answers).
struct AppSyncDialect: ConnectionDialect {
    typealias Machine = AppSyncConnectionMachine

    /// The inputs only AppSync has.
    enum Command: Sendable {
        /// `publish(_:to:)` was called; `ticket` identifies the caller for a cancellation.
        case publish(ticket: UInt64, channel: String, events: [String], CheckedContinuation<AppSyncPublishResult, any Error>)
        /// The task that called `publish(_:to:)` was cancelled.
        case cancelPublish(ticket: UInt64)
        /// The authorization for the subscribe of `key` on `connection` could not be made.
        case subscribeUnauthorized(SubscriptionKey, connection: ConnectionID, SwitchboardError)
        /// The authorization for the publish with wire id `id` could not be made.
        case publishUnauthorized(id: String, SwitchboardError)
    }

    /// The publishes waiting for their answers, by wire id, and whether the transport shut down.
    struct State {
        /// The callers waiting for the answer to their publish, by its wire id.
        var publishWaiters: [String: (ticket: UInt64, continuation: CheckedContinuation<AppSyncPublishResult, any Error>)] = [:]
        /// Set at shutdown: later publishes fail at once.
        var stopped = false
    }

    /// Endpoint, authorization and timing.
    let configuration: AppSyncEventsSubscriber.Configuration
    /// The socket engine.
    let connector: any WebSocketConnector
    /// The transport's logger (`switchboard.transport` = `appsync`).
    let logger: Logger
    /// The `switchboard.appsync.*` counters.
    let metrics: AppSyncMetrics

    func open(
        _ connection: ConnectionID, reason: TokenRequestReason, as identity: TransportIdentity
    ) async -> Result<OpenedSocket<Void>, ConnectFailure> {
        guard let host = configuration.host ?? AppSyncAuthorization.httpHost(forRealtime: configuration.realtimeURL) else {
            return .failure(ConnectFailure(SwitchboardError(code: .invalidConfiguration, message: "the realtime URL has no host"), isAuthorization: false))
        }
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(for: .connect, host: host, reason: reason, sessionToken: identity.tokens)
        } catch {
            return .failure(ConnectFailure(SwitchboardError(
                code: .sessionExpired, message: "the token provider failed", cause: SendableErrorBox(error)), isAuthorization: true))
        }
        let request = WebSocketRequest(
            url: configuration.realtimeURL, subprotocols: ["aws-appsync-event-ws", AppSyncAuthorization.subprotocol(for: headers)])
        do {
            return .success(OpenedSocket(try await connector.connect(request), handshake: ()))
        } catch let error as WebSocketHandshakeError {
            return .failure(ConnectFailure(
                SwitchboardError(code: .network, message: "\(error)", cause: error), isAuthorization: error.isAuthorizationFailure))
        } catch let error as SwitchboardError {
            return .failure(ConnectFailure(.connectFailure(error), isAuthorization: false))
        } catch {
            return .failure(ConnectFailure(
                SwitchboardError(code: .network, message: "connecting failed", cause: SendableErrorBox(error)), isAuthorization: false))
        }
    }

    func opening(_ opening: SocketOpening, state: inout State) {
        metrics.connections.increment()
        if !opening.isReplacement, opening.wasConnected { metrics.reconnects.increment() }
    }

    func decode(_ message: WebSocketMessage, on connection: ConnectionID) -> Result<AppSyncServerMessage, SwitchboardError>? {
        switch message {
        case .text(let text):
            logger.trace("frame in", metadata: ["switchboard.bytes": "\(text.utf8.count)"])
            do {
                return .success(try AppSyncCodec.decode(text))
            } catch let error as SwitchboardError {
                metrics.decodeFailures.increment()
                return .failure(error)
            } catch {
                return nil
            }
        case .binary(let data):
            metrics.decodeFailures.increment()
            return .failure(SwitchboardError(code: .protocolViolation, message: "the AppSync server sent a binary frame (\(data.count) bytes)"))
        }
    }

    func encode(_ message: Machine.Outbound, on connection: ConnectionID, identity: TransportIdentity?, state: inout State) -> Encoding {
        switch message {
        case .connectionInit:
            return .frame(AppSyncCodec.encode(.connectionInit), kind: nil)
        case .unsubscribe(let id):
            return .frame(AppSyncCodec.encode(.unsubscribe(id: id)), kind: nil)
        // Tokens and signatures are made in a child task, so a slow provider never holds up
        // keep-alives, timers or other sockets.
        case .subscribe(let key, _, _):
            guard identity != nil else { return .skip }
            metrics.subscriptions.increment()
            logger.debug("subscribing", metadata: ["switchboard.subscription": "\(key)"])
            return .authorize
        case .publish(_, _, let events):
            guard identity != nil else { return .skip }
            logger.debug("publishing", metadata: ["switchboard.events": "\(events.count)"])
            return .authorize
        }
    }

    func authorize(_ message: Machine.Outbound, on connection: ConnectionID, as identity: TransportIdentity?) async -> Authorized<Command> {
        switch message {
        case .subscribe(let key, let id, let channel):
            do {
                let headers = try await authorizationHeaders(identity, reason: .subscribe, for: .subscribe(channel: channel))
                return .frame(AppSyncCodec.encode(.subscribe(id: id, channel: channel, authorization: headers)), kind: nil)
            } catch {
                return .refused(.subscribeUnauthorized(key, connection: connection, SwitchboardError(
                    code: .sessionExpired, message: "no token or credentials for the subscription", cause: SendableErrorBox(error))))
            }
        case .publish(let id, let channel, let events):
            do {
                let headers = try await authorizationHeaders(identity, reason: .publish, for: .publish(channel: channel, events: events))
                return .frame(AppSyncCodec.encode(.publish(id: id, channel: channel, events: events, authorization: headers)), kind: nil)
            } catch {
                return .refused(.publishUnauthorized(id: id, SwitchboardError(
                    code: .sessionExpired, message: "no token or credentials for the publish", cause: SendableErrorBox(error))))
            }
        case .connectionInit:
            return .frame(AppSyncCodec.encode(.connectionInit), kind: nil)
        case .unsubscribe(let id):
            return .frame(AppSyncCodec.encode(.unsubscribe(id: id)), kind: nil)
        }
    }

    func deliver(
        _ events: AppSyncEvents, for key: SubscriptionKey, receivedAt: Date, charge: InboundCharge,
        to continuation: TransportEvents.Continuation
    ) {
        guard !events.isEmpty else {
            charge.release()
            return
        }
        for (index, event) in events.enumerated() {
            metrics.events.increment()
            // Parsed once, when the frame was decoded: the envelope takes that document, and its
            // bytes are the payload.
            let envelope =
                if let document = event.document {
                    EventEnvelope(subscription: key, document: document, receivedAt: receivedAt, transport: .appsync)
                } else {
                    EventEnvelope(subscription: key, document: nil, payload: Data(event.bytes), receivedAt: receivedAt, transport: .appsync)
                }
            // The frame's bytes are held until the reader is done with its last event.
            continuation.yield(.received(envelope), charge: index == events.count - 1 ? charge : .none)
        }
    }

    func reporting(_ event: TransportEvent, state: inout State) {}

    func handle(
        _ command: Command, machine: inout Machine, state: inout State, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Machine.Action] {
        switch command {
        case .publish(let ticket, let channel, let events, let continuation):
            guard !state.stopped else {
                continuation.resume(throwing: SwitchboardError(code: .shutDown, message: "the AppSync transport is shut down"))
                return []
            }
            let (id, actions) = machine.publish(channel: channel, events: events, timeout: configuration.publishTimeout, at: now)
            state.publishWaiters[id] = (ticket, continuation)
            return actions
        case .cancelPublish(let ticket):
            guard let id = state.publishWaiters.first(where: { $0.value.ticket == ticket })?.key,
                let waiter = state.publishWaiters.removeValue(forKey: id)
            else { return [] }
            waiter.continuation.resume(throwing: CancellationError())
            return machine.cancelPublish(id: id, SwitchboardError(code: .shutDown, message: "cancelled"))
        case .subscribeUnauthorized(let key, let connection, let error):
            return machine.subscribeNotSent(key: key, on: connection, error, at: now)
        case .publishUnauthorized(let id, let error):
            return machine.cancelPublish(id: id, error)
        }
    }

    func perform(_ action: Machine.Extra, state: inout State) {
        switch action {
        case .completePublish(let id, let result):
            guard let waiter = state.publishWaiters.removeValue(forKey: id) else { return }
            switch result {
            case .success(let outcome):
                metrics.publishAccepted.increment(by: outcome.accepted.count)
                metrics.publishRefused.increment(by: outcome.refused.count)
                waiter.continuation.resume(returning: outcome)
            case .failure(let error):
                metrics.publishFailed.increment()
                logger.debug("publish failed", metadata: ["switchboard.error": "\(error.code)"])
                waiter.continuation.resume(throwing: error)
            }
        case .replaced(let from, let to):
            metrics.replacements.increment()
            logger.debug("connection replaced", metadata: ["switchboard.from": "\(from)", "switchboard.to": "\(to)"])
        }
    }

    func shutDown(state: inout State) {
        state.stopped = true
        for waiter in state.publishWaiters.values {
            waiter.continuation.resume(throwing: SwitchboardError(code: .shutDown, message: "the AppSync transport shut down before the publish was answered"))
        }
        state.publishWaiters.removeAll()
    }

    private func authorizationHeaders(
        _ identity: TransportIdentity?, reason: TokenRequestReason, for operation: AppSyncAuthorization.Operation
    ) async throws -> [String: String] {
        guard let identity else { throw SwitchboardError(code: .sessionExpired, message: "signed out") }
        let host = configuration.host ?? AppSyncAuthorization.httpHost(forRealtime: configuration.realtimeURL) ?? ""
        return try await configuration.authorization.headers(for: operation, host: host, reason: reason, sessionToken: identity.tokens)
    }
}
