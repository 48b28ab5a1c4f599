import Foundation
import SwitchboardCore

extension GraphQLConnectionStateMachine {
    /// Why a connection ended, as the machine classifies it.
    enum Ending: Equatable {
        /// The server refused the credentials: refresh once, then `sessionExpired`.
        case authorization(String)
        /// Never retried (a protocol or configuration problem the server will keep refusing).
        case fatal(SwitchboardError)
        /// Retried per the reconnect policy.
        case retryable(ReconnectPolicy.Disconnect.Reason, isNormal: Bool)
    }

    /// Socket `connection` is open (with the token it was opened with): send `connection_init`
    /// and wait for the acknowledgement.
    mutating func opened(_ connection: ConnectionID, handshake token: String?, at now: Duration) -> [Action] {
        guard case .opening(let current, let attempt) = phase else { return [] }
        phase = .awaitingAck(connection: current, attempt: attempt, deadline: now + settings.ackTimeout)
        return [.send(current, .connectionInit(token: token))]
    }

    /// Opening socket `connection` failed (token provider, connect, handshake), as
    /// ``GraphQLDialect/classify(_:)`` classified it.
    mutating func openFailed(
        _ connection: ConnectionID, _ failure: ConnectFailure, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action] {
        let ending: Ending
        if failure.isAuthorization {
            ending = .authorization(failure.error.message)
        } else if failure.error.code == .invalidConfiguration {
            // A URL or setting the connector refuses will be refused again: stop.
            ending = .fatal(failure.error)
        } else {
            ending = .retryable(.failed(failure.error), isNormal: false)
        }
        return ended(ending, now: now, random: &random)
    }

    /// Socket `connection` closed or failed.
    mutating func closed(
        _ connection: ConnectionID, close: WebSocketClose?, error failure: (any Error)?, at now: Duration,
        random: inout some RandomNumberGenerator
    ) -> [Action] {
        let ending: Ending
        if let close {
            ending = classify(close)
        } else {
            let message = failure.map { "the connection failed: \($0)" } ?? "the connection ended without a close frame"
            ending = .retryable(.failed(SwitchboardError(code: .network, message: message)), isNormal: false)
        }
        return ended(ending, now: now, random: &random, alreadyClosed: true)
    }

    /// The close-code table (protocol doc §2 for graphql-transport-ws).
    func classify(_ close: WebSocketClose) -> Ending {
        let code = close.code.rawValue
        let text = close.reason.isEmpty ? "closed with \(code)" : "closed with \(code): \(close.reason)"
        let acked: Bool = if case .connected = phase { true } else { false }
        if settings.dialect == .graphQLTransportWS {
            switch code {
            case 4401, 4403:
                return .authorization(text)
            case 4400, 4406, 4409, 4429, 4500, 4004, 4005:
                let errorCode: SwitchboardError.Code = code == 4406 ? .invalidConfiguration : .protocolViolation
                return .fatal(SwitchboardError(code: errorCode, message: "the server \(text)"))
            case 4408, 4499, 4504, 1001, 1005, 1006, 1011, 1012, 1013, 1014:
                // 1011 (internal error) is fatal in the graphql-ws client, but servers, proxies
                // and load balancers send it for transient trouble such as a restart; giving up
                // for good would leave the app without events until the next sign-in.
                return .retryable(.closed(close), isNormal: false)
            case 1000:
                // A normal close the client did not ask for, with subscriptions still held, is
                // not the end of the session (graphql-ws #446): retry per policy.
                return .retryable(.closed(close), isNormal: held.isEmpty)
            case 1000..<2000:
                return .fatal(SwitchboardError(code: .protocolViolation, message: "the server \(text)"))
            default:
                return .retryable(.closed(close), isNormal: false)
            }
        }
        if !acked && (code == 4401 || code == 4403) { return .authorization(text) }
        // Legacy and AppSync servers close with 1000 even on trouble; a close the client did not
        // ask for while subscriptions are held counts as abnormal.
        return .retryable(.closed(close), isNormal: code == 1000 && held.isEmpty)
    }

    /// Ends the current connection and decides what comes next.
    mutating func ended(_ ending: Ending, now: Duration, random: inout some RandomNumberGenerator,
                        alreadyClosed: Bool = false) -> [Action] {
        guard let connection = currentConnection else { return [] }
        let attempt: Int = switch phase {
        case .opening(_, let attempt), .awaitingAck(_, let attempt, _): attempt
        default: 0
        }
        var actions: [Action] = []
        if !alreadyClosed {
            let code: WebSocketCloseCode = settings.dialect == .graphQLTransportWS ? WebSocketCloseCode(4499) : .normalClosure
            actions.append(.close(connection, code: code, reason: "connection abandoned"))
        }
        resetWire()
        switch ending {
        case .authorization(let message):
            if !refreshedAfterRejection {
                refreshedAfterRejection = true
                // Not reported: `sessionExpired` means the refresh did not help either (the
                // transport contract), and an app may sign its user out on it. The driver logs
                // the retry.
                return actions + startOpening(attempt: max(attempt, 1), tokenReason: .refreshAfterRejection)
            }
            phase = .disconnected
            let error = SwitchboardError(code: .sessionExpired, message: "credentials rejected after a token refresh: \(message)")
            return actions + [.report(.connectionStateChanged(.disconnected(error)))]
        case .fatal(let error):
            phase = .disconnected
            return actions + [.report(.connectionStateChanged(.disconnected(error)))]
        case .retryable(let reason, let isNormal):
            let reported: SwitchboardError? = switch reason {
            case .requested: nil
            case .failed(let error): error
            case .closed(let close): Self.serverClosed(close)
            }
            let step = ReconnectStep.afterLoss(
                reason, isNormal: isNormal, signedIn: signedIn, attempt: attempt, reported: reported,
                stopError: isNormal ? nil : reported, policy: settings.policy, now: now, random: &random)
            switch step.next {
            case .reconnect(let attempt, let until): phase = .waitingToReconnect(attempt: attempt, until: until)
            case .stop: phase = .disconnected
            }
            return actions + step.reports.map(Action.report)
        }
    }

    static func serverClosed(_ close: WebSocketClose) -> SwitchboardError {
        SwitchboardError(code: .network, message: "the server closed the connection (\(ReconnectPolicy.Disconnect.Reason.closed(close)))")
    }

    /// A timer fired: check every deadline against `now`.
    mutating func timerFired(at now: Duration, random: inout some RandomNumberGenerator) -> [Action] {
        switch phase {
        case .awaitingAck(_, _, let deadline) where deadline <= now:
            let error = SwitchboardError.connectionTimeout(.connectionAck, "no connection_ack within \(settings.ackTimeout.secondsDescription)")
            return ended(.retryable(.failed(error), isNormal: false), now: now, random: &random)
        case .waitingToReconnect(let attempt, let until) where until <= now:
            let tokenReason: TokenRequestReason = .connect
            return startOpening(attempt: attempt, tokenReason: tokenReason)
        case .connected(let connection, var liveness):
            if let check = liveness.check, check.deadline <= now {
                return checkFailed(ConnectionCheckFailure.noPong(within: check.timeout))
            }
            if let deadline = liveness.keepAliveDeadline, deadline <= now {
                let error = SwitchboardError.connectionTimeout(
                    .keepAlive, "no keep-alive within \((liveness.keepAliveWindow ?? settings.keepAliveTimeout).secondsDescription)")
                return ended(.retryable(.failed(error), isNormal: false), now: now, random: &random)
            }
            if let deadline = liveness.pongDeadline, deadline <= now {
                let error = SwitchboardError.connectionTimeout(.keepAlive, "no pong within \(settings.pongTimeout.secondsDescription)")
                return ended(.retryable(.failed(error), isNormal: false), now: now, random: &random)
            }
            var actions: [Action] = []
            if let due = liveness.nextPing, due <= now, let interval = settings.pingInterval {
                actions.append(.send(connection, .ping))
                liveness.nextPing = now + interval
                if liveness.pongDeadline == nil { liveness.pongDeadline = now + settings.pongTimeout }
            }
            phase = .connected(connection: connection, liveness)
            return actions
        default:
            return []
        }
    }
}
