import CoreMetrics
import Foundation
import Logging
import SwitchboardCore
import SwitchboardSync

extension BackendNotifier {
    /// Follows the session: connect on sign-in, move on a change of user or organization,
    /// disconnect on sign-out.
    func apply(_ update: Session) {
        // Transports read the provider at every request, so a new one for the same user takes
        // effect without a reconnect.
        tokens.use(update.identity?.tokens)
        guard !switching.isPending else { return applyDuringSwitch(update) }
        let user: Logger.MetadataValue = "\(update.identity?.userId ?? "-")"
        var connect = true
        switch session.follow(update) {
        case .none:
            return
        case .signOut:
            logger.debug("signed out: disconnecting")
            catchUp.note { $0.forgetUser() }
            send(subscriptions.table.removeAll())
            transport.disconnect()
            return
        case .refresh:
            // The same user again: the channels are the same, so only a transport that stopped
            // (`sessionExpired`, given up) connects again. Connecting, connected or waiting to
            // reconnect (or idle: the transport's report of a connect just asked for may still be
            // on its way), it keeps the connection.
            if case .disconnected = connectionState {
                logger.debug("signed in again: connecting", metadata: ["switchboard.user": user])
            } else {
                logger.debug("signed in again: keeping the connection", metadata: ["switchboard.user": user])
                connect = false
            }
        case .change:
            logger.debug("identity changed: resubscribing", metadata: ["switchboard.user": user])
            send(subscriptions.table.removeAll())
            catchUp.note { $0.forgetUser() }
        case .signIn:
            logger.debug("signed in: connecting", metadata: ["switchboard.user": user])
        }
        subscriptions.forgetReportedFailures()
        if connect { connectIfActive() }
        reconcile()
    }

    /// While a switch of transport waits for the old transport to stop, nothing is sent to
    /// either; the new transport connects as whoever is signed in when it starts.
    private func applyDuringSwitch(_ update: Session) {
        subscriptions.forgetReportedFailures()
        switch session.followDuringSwitch(update) {
        case .signOut:
            logger.debug("signed out during a switch of transport")
            setConnectionState(.idle, transport: transportKind)
        case .signIn(let first):
            logger.debug("signed in during a switch of transport", metadata: [
                "switchboard.user": "\(update.identity?.userId ?? "-")"])
            if first, let pending = switching.pending {
                setConnectionState(.connecting(attempt: 1), transport: pending.next.kind)
            }
        }
    }

    /// Brings the transport's subscriptions in line with what consumers want.
    func reconcile() {
        guard let identity = session.identity, lifecycle != .shutDown, !switching.isPending else { return }
        let (failures, commands) = subscriptions.replan(
            for: Set(consumers.values.map(\.stream)), on: transport, identity: identity,
            namespace: configuration.namespace)
        for failure in failures { report(failure.error, stream: failure.stream) }
        send(commands)
        catchUpStep { $0.readinessChanged($1) }
    }

    func send(_ commands: [SubscriptionTable.Command]) {
        subscriptions.send(commands, to: transport, logger: logger) { report($0, streams: $1) }
    }

    /// Handles what the current transport reported; `stamp` is when a state change or an
    /// established subscription was reported (a moment of ``backendClock``'s timeline; nil: now),
    /// which bounds when connections opened and closed, and when subscriptions started, for
    /// matching legacy live copies.
    func handle(_ event: TransportEvent, seenAt stamp: Duration?) {
        switch event {
        case .connectionStateChanged(let state):
            // Read only here: the clock is not read for every event.
            let seenAt = stamp ?? backendClock.now()
            let previous = connectionState
            if previous == .connected, state != .connected { catchUp.note { $0.connectionClosed(at: seenAt) } }
            setConnectionState(state, transport: transportKind)
            let gap = session.connectionChanged(from: previous, to: state)
            switch state {
            case .connected:
                if previous != .connected { catchUp.note { $0.connectionOpened(at: seenAt) } }
                reconcile()
                // The catch-up (contract.md §6) starts right after, in the catch-up machine.
                if let gap { logger.debug("delivery resumed after a gap", metadata: ["switchboard.gap": "\(gap)"]) }
                catchUpStep { $0.connected(after: gap, readiness: $1) }
            case .connecting, .waitingToReconnect, .idle, .shutDown:
                send(subscriptions.table.connectionLost())
            case .disconnected(let error):
                send(subscriptions.table.connectionLost())
                if let error { report(error) }
            }
        case .subscriptionEstablished(let key):
            logger.debug("subscription established", metadata: ["switchboard.subscription": "\(key)"])
            // Without acknowledgements it is reported as the start goes out: from then on the
            // subscription's streams can carry live copies of what a catch-up fetches.
            if let stamp, !transport.acknowledgesSubscriptions, connectionState == .connected {
                let streams = subscriptions.table.streams(servedBy: key)
                catchUp.note { $0.subscriptionStarted(streams, at: stamp) }
            }
            send(subscriptions.table.established(key))
            catchUpStep { $0.readinessChanged($1) }
        case .subscriptionFailed(let key, let error):
            let result = subscriptions.table.rejected(key)
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
        if connectionState == .connected { catchUp.note { $0.connectionClosed(at: backendClock.now()) } }
        connectionState = state
        logger.debug("connection state", metadata: ["switchboard.state": "\(state)"])
        observers.yield(state)
        broker.publish(ConnectionStateChangedEvent(state: state, transport: kind))
        // A stream is established only while connected; a switch of transport changes the
        // state outside the input loop.
        publishStreamStatuses()
    }

    func report(_ error: SwitchboardError, stream: StreamID? = nil) {
        metrics.errors.increment()
        logger.debug("error", metadata: ["switchboard.error": "\(error)", "switchboard.stream": "\(stream?.rawValue ?? "-")"])
        observers.yield(error)
        broker.publish(SwitchboardErrorEvent(error: error, stream: stream?.rawValue))
    }

    func report(_ error: SwitchboardError, streams: Set<StreamID>) {
        if streams.count == 1, let only = streams.first {
            report(error, stream: only)
        } else {
            report(error)
        }
    }
}
