import Foundation
import SwitchboardCore

extension GraphQLConnectionStateMachine {
    /// A frame arrived on socket `connection` and decoded to `message`.
    mutating func received(
        _ message: GraphQLServerMessage, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action] {
        var actions: [Action] = []
        received(message, on: connection, at: now, random: &random, into: &actions)
        return actions
    }

    /// ``received(_:on:at:random:)``, into the driver's reused buffer: a result appends its
    /// delivery without an array of its own.
    mutating func received(
        _ message: GraphQLServerMessage, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator,
        into actions: inout [Action]
    ) {
        switch phase {
        case .awaitingAck(let connection, _, _):
            actions += receivedBeforeAck(message, on: connection, now: now, random: &random)
        case .connected(let connection, var liveness):
            // Any frame proves the connection alive for the server keep-alive watchdog.
            if liveness.keepAliveDeadline != nil, let window = liveness.keepAliveWindow {
                liveness.keepAliveDeadline = now + window
            }
            if case .keepAlive = message, liveness.keepAliveDeadline == nil,
               capabilities.serverKeepAlive == .afterFirstKeepAlive {
                liveness.keepAliveWindow = settings.keepAliveTimeout
                liveness.keepAliveDeadline = now + settings.keepAliveTimeout
            }
            if case .pong = message { liveness.pongDeadline = nil }
            phase = .connected(connection: connection, liveness)
            if case .next(let id, let data, let errors) = message {
                receivedResult(id: id, data: data, errors: errors, into: &actions)
            } else {
                actions += receivedWhileConnected(message, on: connection)
            }
        default:
            break
        }
    }

    private mutating func receivedBeforeAck(_ message: GraphQLServerMessage, on connection: ConnectionID, now: Duration,
                                            random: inout some RandomNumberGenerator) -> [Action] {
        switch message {
        case .connectionAck(let window):
            refreshedAfterRejection = false
            var liveness = Liveness()
            switch capabilities.serverKeepAlive {
            case .fromAcknowledgement:
                liveness.keepAliveWindow = window ?? settings.keepAliveTimeout
                liveness.keepAliveDeadline = now + (window ?? settings.keepAliveTimeout)
            case .afterFirstKeepAlive, .none:
                break
            }
            if capabilities.clientPings, let interval = settings.pingInterval {
                liveness.nextPing = now + interval
            }
            phase = .connected(connection: connection, liveness)
            var actions: [Action] = [.report(.connectionStateChanged(.connected))]
            for key in held.keys.sorted() { actions += sendStart(key, on: connection) }
            return actions
        case .connectionError(let errors):
            let message = errors.map(\.description).joined(separator: "; ")
            // Legacy servers answer a refused init with connection_error; AppSync says why.
            if settings.dialect == .graphQLWS || errors.contains(where: \.isAuthorization) {
                return ended(.authorization(message), now: now, random: &random)
            }
            let error = SwitchboardError(code: .network, message: "connection refused: \(message)")
            return ended(.retryable(.failed(error), isNormal: false), now: now, random: &random)
        case .ping(let payload):
            return [.send(connection, .pong(payload: payload))]
        case .keepAlive, .pong:
            return []
        case .subscriptionAck, .next, .error, .complete:
            return [.report(.error(SwitchboardError(
                code: .protocolViolation, message: "operation frame before connection_ack; ignored")))]
        }
    }

    private mutating func receivedWhileConnected(_ message: GraphQLServerMessage, on connection: ConnectionID) -> [Action] {
        switch message {
        case .connectionAck, .keepAlive, .pong:
            return []
        case .ping(let payload):
            return [.send(connection, .pong(payload: payload))]
        case .connectionError(let errors):
            // After the ack it reports a frame the server could not parse; the socket stays open.
            return [.report(.error(SwitchboardError(
                code: .protocolViolation, message: "server reported: \(errors.map(\.description).joined(separator: "; "))")))]
        case .subscriptionAck(let id):
            switch active[id] {
            case .serving(let key)?:
                held[key]?.wire = .established(id: id)
                return [.report(.subscriptionEstablished(key))]
            case .cancelled?:
                active[id] = nil
                return [.send(connection, .unsubscribe(id: id))]
            case nil:
                return []
            }
        case .next(let id, let data, let errors):
            var actions: [Action] = []
            receivedResult(id: id, data: data, errors: errors, into: &actions)
            return actions
        case .error(let id?, let errors):
            return failed(id: id, message: errors.map(\.description).joined(separator: "; "))
        case .error(nil, let errors):
            // AppSync throttling (LimitExceededError) and similar arrive without an id.
            return [.report(.error(SwitchboardError(
                code: .subscriptionRejected, message: errors.map(\.description).joined(separator: "; "))))]
        case .complete(let id):
            guard case .serving(let key)? = active.removeValue(forKey: id) else { return [] }
            held[key] = nil
            return [.report(.subscriptionFailed(key, SwitchboardError(
                code: .subscriptionRejected, message: "the server ended the subscription")))]
        }
    }

    private mutating func receivedResult(
        id: String, data: ResultData?, errors: [GraphQLServerError], into actions: inout [Action]
    ) {
        guard case .serving(let key)? = active[id] else { return }
        // A partial result: the value goes on, with the server's errors beside it (the notifier
        // reports them on the streams it reaches; the subscription is not ended).
        if let data { return actions.append(.deliver(key, GraphQLResult(data: data, errors: errors.map(\.description)))) }
        let message = errors.isEmpty ? "a result with neither data nor errors" : errors.map(\.description).joined(separator: "; ")
        if settings.dialect == .graphQLTransportWS {
            // Resolver errors ride on `next` and do not end the operation.
            return actions.append(.report(.error(SwitchboardError(code: .subscriptionRejected, message: "\(key): \(message)"))))
        }
        // Legacy servers report validation errors as `data` with `errors`: the operation failed.
        actions += failed(id: id, message: message)
    }

    /// The server ended operation `id` with an error: the subscription fails alone, and no stop is
    /// ever sent for the id (the server no longer knows it).
    private mutating func failed(id: String, message: String) -> [Action] {
        guard case .serving(let key)? = active.removeValue(forKey: id) else { return [] }
        held[key] = nil
        return [.report(.subscriptionFailed(key, SwitchboardError(code: .subscriptionRejected, message: message)))]
    }
}
