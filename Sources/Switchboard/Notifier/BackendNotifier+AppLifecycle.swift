import Logging
import SwitchboardCore

/// The mobile lifecycle: background and foreground, network path changes, memory warnings.
extension BackendNotifier {
    /// The app went to the background: closes the connection normally and makes no attempt to
    /// reconnect until ``resume()``.
    ///
    /// Consumers' streams stay open and the subscriptions stay planned; a session update while
    /// suspended is remembered and used at ``resume()``. What is published meanwhile is missed
    /// live: with ``Configuration/catchUp`` set, ``resume()`` fills the gap. Publishes an
    /// ``AppLifecycleEvent``. Calling it again while suspended does nothing.
    public func suspend() {
        guard lifecycle != .shutDown, gate.suspend() else { return }
        logger.debug("suspended: closing the connection")
        broker.publish(AppLifecycleEvent(phase: .suspended))
        if session.isSignedIn, !switching.isPending { transport.disconnect() }
    }

    /// The app came back to the foreground: after ``suspend()``, connects again at once (no
    /// reconnect delay), subscribes again and, with ``Configuration/catchUp`` set, fills the gap.
    ///
    /// Without a ``suspend()`` before it, the connection may still have died while the app was
    /// away, so it is checked at once instead (see ``Configuration/connectionCheckTimeout``).
    /// Publishes an ``AppLifecycleEvent``. With the network path lost, the connection is made
    /// when the path returns.
    public func resume() {
        guard lifecycle != .shutDown else { return }
        broker.publish(AppLifecycleEvent(phase: .resumed))
        switch gate.resume() {
        case .checkConnection:
            logger.debug("resumed without a suspension: checking the connection")
            checkConnection()
        case .connect:
            logger.debug("resumed: connecting")
            connectIfActive()
        }
    }

    /// The system is short of memory: drops what can be rebuilt or is only kept for inspection,
    /// and returns what it freed. Publishes a ``MemoryWarningEvent``.
    ///
    /// - The broker's ``EventBroker/history`` and ``EventBroker/deadLetters``.
    /// - With catch-up on, the fingerprints of the catch-up before the last one (kept to
    ///   recognise late live copies), when no catch-up runs; and the remembered live deliveries:
    ///   they are what stops a catch-up from delivering an event twice, so a catch-up starts that
    ///   moves the checkpoint past them, and they are dropped when it succeeds (as when
    ///   ``CatchUp/rememberedDeliveries`` is reached).
    ///
    /// Consumers' buffers are left alone: what they hold has not been delivered yet.
    @discardableResult
    public func didReceiveMemoryWarning() -> MemoryTrim {
        let discarded = broker.discardHistory()
        var trim = MemoryTrim(historyRecords: discarded.history, deadLetters: discarded.deadLetters)
        catchUpStep { machine, readiness in
            let (fingerprints, remembered, actions) = machine.trimForMemory(signedIn: session.isSignedIn, readiness: readiness)
            trim.caughtUpFingerprints = fingerprints
            trim.rememberedDeliveries = remembered
            return actions
        }
        logger.debug("memory warning", metadata: ["switchboard.trimmed": "\(trim)"])
        broker.publish(MemoryWarningEvent(trimmed: trim))
        return trim
    }

    // MARK: Network paths

    /// Reacts to a path the monitor reported.
    func apply(_ path: NetworkPath) {
        let (previous, change) = gate.apply(path, connectionFacts)
        let reaction: NetworkStatusChangedEvent.Reaction
        switch change {
        case .none:
            reaction = .none
        case .disconnect:
            // Stop waiting on a socket that cannot work; the gap is recorded as for a drop.
            logger.debug("network path lost: closing the connection")
            transport.disconnect()
            reaction = .disconnected
        case .connect:
            logger.debug("network path back: connecting")
            reaction = connectIfActive() ? .reconnecting : .none
        case .checkConnection:
            logger.debug("network path changed: checking the connection", metadata: ["switchboard.path": "\(path)"])
            reaction = checkConnection() ? .checkingConnection : .none
        }
        broker.publish(NetworkStatusChangedEvent(path: path, previous: previous, reaction: reaction))
    }

    // MARK: Connecting

    /// What the connection gate needs to know besides the app's lifecycle and the path.
    var connectionFacts: ConnectionGate.Facts {
        ConnectionGate.Facts(
            signedIn: session.isSignedIn, shutDown: lifecycle == .shutDown, switching: switching.isPending,
            connected: connectionState == .connected)
    }

    /// Connects the transport as the signed-in identity, unless suspended, offline or switching.
    @discardableResult
    func connectIfActive() -> Bool {
        guard gate.wantsConnection(connectionFacts), let identity = session.identity else { return false }
        transport.connect(as: tokens.identity(for: identity))
        return true
    }

    /// Checks the connection at once: a ping with a short deadline where the transport can, a
    /// new connection where it cannot.
    @discardableResult
    func checkConnection() -> Bool {
        guard gate.wantsConnection(connectionFacts), let identity = session.identity else { return false }
        if let verifying = transport as? any ConnectionVerifying {
            verifying.verifyConnection(timeout: configuration.connectionCheckTimeout)
        } else {
            transport.connect(as: tokens.identity(for: identity))
        }
        return true
    }
}
