import Foundation
import CoreMetrics
import Logging
import SwitchboardCore

extension BackendNotifier {
    /// Follows the session: connect on sign-in, move on a change of user or organization,
    /// disconnect on sign-out.
    func apply(_ session: Session) {
        if pendingSwitch != nil {
            applyDuringSwitch(session)
            return
        }
        switch session {
        case .signedOut:
            guard identity != nil else { return }
            logger.debug("signed out: disconnecting")
            identity = nil
            tokenProvider.withLock { $0 = nil }
            pendingGap = nil
            connectionResetRequested = true
            catchUpMachine?.forgetUser()
            send(table.removeAll())
            transport.disconnect()
        case .signedIn(let next):
            tokenProvider.withLock { $0 = next.tokens }
            if let current = identity, current.userId == next.userId, current.orgId == next.orgId {
                // The same user again, as an auth layer sends on every token refresh: the
                // channels are the same and the transport reads tokens through `tokenProvider`,
                // so the next connect or subscribe uses the new one without a reconnect. Only a
                // transport that stopped (`sessionExpired`, given up) connects again.
                identity = next
                reportedPlanFailures.removeAll()
                if case .disconnected = connectionState {
                    logger.debug("signed in again: connecting", metadata: ["switchboard.user": "\(next.userId)"])
                    connectIfActive()
                } else {
                    // Connecting, connected or waiting to reconnect (or idle: the transport's
                    // report of a connect just asked for may still be on its way).
                    logger.debug("signed in again: keeping the connection", metadata: ["switchboard.user": "\(next.userId)"])
                }
                reconcile()
                return
            }
            if identity != nil {
                logger.debug("identity changed: resubscribing", metadata: ["switchboard.user": "\(next.userId)"])
                send(table.removeAll())
                pendingGap = nil
                connectionResetRequested = true
                catchUpMachine?.forgetUser()
            } else {
                logger.debug("signed in: connecting", metadata: ["switchboard.user": "\(next.userId)"])
            }
            identity = next
            reportedPlanFailures.removeAll()
            connectIfActive()
            reconcile()
        }
    }

    /// While a switch of transport waits for the old transport to stop, nothing is sent to
    /// either; the new transport connects as whoever is signed in when it starts.
    private func applyDuringSwitch(_ session: Session) {
        reportedPlanFailures.removeAll()
        switch session {
        case .signedOut:
            logger.debug("signed out during a switch of transport")
            identity = nil
            tokenProvider.withLock { $0 = nil }
            pendingGap = nil
            setConnectionState(.idle, transport: transportKind)
        case .signedIn(let next):
            logger.debug("signed in during a switch of transport", metadata: ["switchboard.user": "\(next.userId)"])
            tokenProvider.withLock { $0 = next.tokens }
            if identity == nil, let pendingSwitch {
                setConnectionState(.connecting(attempt: 1), transport: pendingSwitch.next.kind)
            }
            identity = next
        }
    }

    /// Brings the transport's subscriptions in line with what consumers want.
    func reconcile() {
        guard let identity, lifecycle != .shutDown, pendingSwitch == nil else { return }
        let wanted = Set(consumers.values.map(\.stream))
        let plan = SubscriptionPlanner.plan(
            for: wanted, kind: transportKind, identity: identity, namespace: configuration.namespace)
        for (stream, error) in plan.failures.sorted(by: { $0.key < $1.key })
        where reportedPlanFailures.insert(stream).inserted {
            report(error, stream: stream)
        }
        send(table.apply(plan.subscriptions))
        catchUpStep { $0.readinessChanged($1) }
    }

    func send(_ commands: [SubscriptionTable.Command]) {
        for command in commands {
            switch command {
            case .subscribe(let request):
                do {
                    logger.debug("subscribing", metadata: ["switchboard.subscription": "\(request.key)"])
                    try transport.subscribe(request)
                } catch {
                    let streams = table.rejected(request.key)
                    send(streams.commands)
                    report(asSwitchboardError(error, code: .invalidConfiguration), streams: streams.streams)
                }
            case .unsubscribe(let key):
                logger.debug("unsubscribing", metadata: ["switchboard.subscription": "\(key)"])
                transport.unsubscribe(key)
            }
        }
    }

    /// Handles what the current transport reported; `seenAt` is when it was reported, which
    /// bounds when connections opened and closed for matching legacy live copies.
    func handle(_ event: TransportEvent, seenAt: Date) {
        switch event {
        case .connectionStateChanged(let state):
            let previous = connectionState
            if previous == .connected, state != .connected { catchUpMachine?.connectionClosed(at: seenAt) }
            setConnectionState(state, transport: transportKind)
            if previous == .connected, state != .connected, identity != nil, !connectionResetRequested {
                pendingGap = pendingGap ?? .reconnected
            }
            switch state {
            case .connected:
                connectionResetRequested = false
                if previous != .connected { catchUpMachine?.connectionOpened(at: seenAt) }
                reconcile()
                let gap = pendingGap
                pendingGap = nil
                if let gap { deliveryResumed(after: gap) }
                catchUpStep { $0.connected(after: gap, readiness: $1) }
            case .connecting:
                catchUpMachine?.attemptStarted(at: seenAt)
                send(table.connectionLost())
            case .waitingToReconnect, .idle, .shutDown:
                send(table.connectionLost())
            case .disconnected(let error):
                send(table.connectionLost())
                if let error { report(error) }
            }
        case .subscriptionEstablished(let key):
            logger.debug("subscription established", metadata: ["switchboard.subscription": "\(key)"])
            send(table.established(key))
            catchUpStep { $0.readinessChanged($1) }
        case .subscriptionFailed(let key, let error):
            let result = table.rejected(key)
            send(result.commands)
            report(error, streams: result.streams)
            catchUpStep { $0.readinessChanged($1) }
        case .received(let envelope):
            deliver(envelope)
        case .error(let error):
            report(error)
        }
    }

    /// Records a new connection state and tells observers and the broker; a repeat of the
    /// current state is not reported again.
    func setConnectionState(_ state: ConnectionState, transport kind: TransportKind) {
        guard state != connectionState else { return }
        if connectionState == .connected { catchUpMachine?.connectionClosed(at: configuration.now()) }
        connectionState = state
        logger.debug("connection state", metadata: ["switchboard.state": "\(state)"])
        for observer in stateObservers.values { observer.yield(state) }
        broker.publish(ConnectionStateChangedEvent(state: state, transport: kind))
        // A stream is established only while connected; a switch of transport changes the
        // state outside the input loop.
        publishStreamStatuses()
    }

    func report(_ error: SwitchboardError, stream: StreamID? = nil) {
        metrics.errors.increment()
        logger.debug("error", metadata: ["switchboard.error": "\(error)", "switchboard.stream": "\(stream?.rawValue ?? "-")"])
        for observer in errorObservers.values { observer.yield(error) }
        broker.publish(SwitchboardErrorEvent(error: error, stream: stream?.rawValue))
    }

    func report(_ error: SwitchboardError, streams: Set<StreamID>) {
        if streams.count == 1, let only = streams.first {
            report(error, stream: only)
        } else {
            report(error)
        }
    }

    func asSwitchboardError(_ error: any Error, code: SwitchboardError.Code) -> SwitchboardError {
        if let error = error as? SwitchboardError { return error }
        return SwitchboardError(code: code, message: "\(error)")
    }
}
