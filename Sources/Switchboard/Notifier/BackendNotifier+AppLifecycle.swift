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
        guard lifecycle != .shutDown, !suspended else { return }
        suspended = true
        logger.debug("suspended: closing the connection")
        broker.publish(AppLifecycleEvent(phase: .suspended))
        if identity != nil, pendingSwitch == nil { transport.disconnect() }
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
        guard suspended else {
            logger.debug("resumed without a suspension: checking the connection")
            checkConnection()
            return
        }
        suspended = false
        logger.debug("resumed: connecting")
        connectIfActive()
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
            let (fingerprints, remembered, actions) = machine.trimForMemory(signedIn: identity != nil, readiness: readiness)
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
        let previous = networkPath
        networkPath = path
        let reaction: NetworkStatusChangedEvent.Reaction
        if previous == path {
            reaction = .none
        } else if !path.isSatisfied {
            let wasActive = isActive
            pathLost = true
            if wasActive {
                // Stop waiting on a socket that cannot work; the gap is recorded as for a drop.
                logger.debug("network path lost: closing the connection")
                transport.disconnect()
                reaction = .disconnected
            } else {
                reaction = .none
            }
        } else if pathLost {
            pathLost = false
            logger.debug("network path back: connecting")
            reaction = connectIfActive() ? .reconnecting : .none
        } else if let previous, previous.interfaces != path.interfaces {
            logger.debug("network path changed: checking the connection", metadata: ["switchboard.path": "\(path)"])
            reaction = checkConnection() ? .checkingConnection : .none
        } else {
            reaction = .none
        }
        broker.publish(NetworkStatusChangedEvent(path: path, previous: previous, reaction: reaction))
    }

    // MARK: Connecting

    /// Someone is signed in, the app is in the foreground, the path is usable and no switch is
    /// pending: the transport should be connected.
    var isActive: Bool {
        identity != nil && lifecycle != .shutDown && !suspended && !pathLost && pendingSwitch == nil
    }

    /// What a transport connects as: the session's user and organization, and tokens from
    /// whichever provider the session holds at the time of each request.
    func transportIdentity(for identity: TransportIdentity) -> TransportIdentity {
        let provider = tokenProvider
        return TransportIdentity(userId: identity.userId, orgId: identity.orgId, tokens: TokenProvider { reason in
            guard let current = provider.withLock({ $0 }) else {
                throw SwitchboardError(code: .sessionExpired, message: "signed out")
            }
            return try await current.token(for: reason)
        })
    }

    /// Connects the transport as the signed-in identity, unless suspended, offline or switching.
    @discardableResult
    func connectIfActive() -> Bool {
        guard isActive, let identity else { return false }
        transport.connect(as: transportIdentity(for: identity))
        return true
    }

    /// Checks the connection at once: a ping with a short deadline where the transport can, a
    /// new connection where it cannot.
    @discardableResult
    func checkConnection() -> Bool {
        guard isActive, let identity else { return false }
        if let verifying = transport as? any ConnectionVerifying {
            verifying.verifyConnection(timeout: configuration.connectionCheckTimeout)
        } else {
            transport.connect(as: transportIdentity(for: identity))
        }
        return true
    }
}
