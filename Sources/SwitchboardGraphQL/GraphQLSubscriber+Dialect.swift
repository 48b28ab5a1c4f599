import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

/// The legacy GraphQL transport for the shared ``/SwitchboardCore/TransportDriver``: how a
/// socket is opened (the token in the URL or `connection_init`), the dialect's codec, the
/// per-start token of the AppSync GraphQL dialect, and how results become envelopes.
struct GraphQLDialect: ConnectionDialect {
    typealias Machine = GraphQLConnectionStateMachine
    typealias State = Void

    /// Endpoint, dialect and timing.
    let configuration: GraphQLSubscriber.Configuration
    /// The socket engine.
    let connector: any WebSocketConnector
    /// The transport's logger (`switchboard.transport` = `graphql`, with the dialect).
    let logger: Logger
    /// The `switchboard.graphql.*` counters.
    let metrics: GraphQLSubscriberMetrics

    func open(
        _ connection: ConnectionID, reason: TokenRequestReason, as identity: TransportIdentity
    ) async -> Result<OpenedSocket<String?>, ConnectFailure> {
        do {
            let token = try await identity.tokens.token(for: reason)
            let request = try configuration.request(token: token)
            let socket: any WebSocketConnection
            do {
                socket = try await connector.connect(request)
            } catch {
                throw SwitchboardError.connectFailure(error)
            }
            return .success(OpenedSocket(socket, handshake: Optional(token)))
        } catch {
            return .failure(Self.classify(error))
        }
    }

    /// Classifies a failed open (token provider, request, connect, handshake) for the machine.
    static func classify(_ error: any Error) -> ConnectFailure {
        if let handshake = error as? WebSocketHandshakeError {
            return ConnectFailure(
                SwitchboardError(code: .network, message: handshake.description, cause: handshake),
                isAuthorization: handshake.isAuthorizationFailure)
        }
        if let error = error as? SwitchboardError {
            return ConnectFailure(error, isAuthorization: error.code == .sessionExpired)
        }
        return ConnectFailure(SwitchboardError(code: .network, message: "could not connect: \(error)"), isAuthorization: false)
    }

    func opening(_ opening: SocketOpening, state: inout Void) {
        if opening.reason == .refreshAfterRejection || opening.connection > 1 { metrics.reconnects.increment() }
    }

    func decode(_ message: WebSocketMessage, on connection: ConnectionID) -> Result<GraphQLServerMessage, SwitchboardError>? {
        guard case .text(let text) = message else {
            metrics.decodeFailures.increment()
            return .failure(SwitchboardError(code: .protocolViolation, message: "binary frame on a GraphQL socket"))
        }
        do {
            let decoded = try GraphQLCodec(configuration.wireProtocol).decode(text)
            logger.trace("frame in", metadata: ["switchboard.connection": "\(connection)", "switchboard.frame": "\(Self.kind(of: decoded))"])
            return .success(decoded)
        } catch {
            metrics.decodeFailures.increment()
            logger.debug("undecodable frame", metadata: ["switchboard.error": "\(error)", "switchboard.bytes": "\(text.utf8.count)"])
            return .failure(error.switchboardError)
        }
    }

    func encode(
        _ message: GraphQLClientMessage, on connection: ConnectionID, identity: TransportIdentity?, state: inout Void
    ) -> Encoding {
        if case .subscribe = message {
            metrics.subscriptions.increment()
            // AppSync's dialect carries a token in each start: fetched off the driver loop.
            if configuration.wireProtocol.capabilities.authorizesEachStart, identity != nil { return .authorize }
        }
        guard let text = encoded(message) else { return .skip }
        return .frame(text, kind: Self.kind(of: message))
    }

    func authorize(_ message: GraphQLClientMessage, on connection: ConnectionID, as identity: TransportIdentity?) async -> Authorized<Never> {
        var message = message
        if case .subscribe(let id, let operation, _) = message, let identity {
            do {
                let token = try await identity.tokens.token(for: .subscribe)
                message = .subscribe(id: id, operation: operation, authorization: configuration.appSyncAuthorizationObject(token: token))
            } catch {
                logger.debug("no token for a start; sending without one", metadata: ["switchboard.error": "\(SwitchboardError.logDescription(error))"])
            }
        }
        guard let text = encoded(message) else { return .skip }
        return .frame(text, kind: Self.kind(of: message))
    }

    /// The frame's text; nil (logged) if it cannot be encoded. Never logs the text: it may
    /// carry a token.
    private func encoded(_ message: GraphQLClientMessage) -> String? {
        do {
            return try GraphQLCodec(configuration.wireProtocol).encode(message)
        } catch {
            logger.debug("send failed", metadata: ["switchboard.error": "\(SwitchboardError.logDescription(error))"])
            return nil
        }
    }

    func deliver(
        _ result: GraphQLResult, for key: SubscriptionKey, receivedAt: Date, charge: InboundCharge,
        to continuation: TransportEvents.Continuation
    ) {
        metrics.events.increment()
        switch LegacyResults.envelope(from: result.data, subscription: key, receivedAt: receivedAt) {
        case .event(var envelope):
            if !result.errors.isEmpty {
                envelope.serverErrors = result.errors
                logger.debug("partial result: data with errors", metadata: [
                    "switchboard.subscription": "\(key)", "switchboard.errors": "\(result.errors.joined(separator: "; "))"])
            }
            continuation.yield(.received(envelope), charge: charge)
        case .nothing(let reason):
            charge.release()
            logger.debug("result carries no event; ignored", metadata: [
                "switchboard.subscription": "\(key)", "switchboard.reason": "\(reason)"])
        }
    }

    func reporting(_ event: TransportEvent, state: inout Void) {
        if case .connectionStateChanged(.connected) = event { metrics.connections.increment() }
    }

    func shutDown(state: inout Void) {}
}
