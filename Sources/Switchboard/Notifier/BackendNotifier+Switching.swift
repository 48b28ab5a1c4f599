import CoreMetrics
import Logging
import SwitchboardCore

extension BackendNotifier {
    // MARK: Public API

    /// Switches to the transport of `kind` while the notifier runs, as set in code.
    ///
    /// The same as ``switchTransport(to:)-(TransportSelection)`` with the source
    /// ``TransportSelection/Source/code``.
    /// - Parameter kind: The transport to run from now on.
    /// - Throws: See ``switchTransport(to:)-(TransportSelection)``.
    public func switchTransport(to kind: TransportKind) async throws {
        try await switchTransport(to: TransportSelection(kind: kind, source: .code))
    }

    /// Switches to the transport the selection names, without ending consumers' streams.
    ///
    /// Selecting the transport already active does nothing. Otherwise the notifier makes the new
    /// transport with the factory given at initialisation, shuts the current one down and waits
    /// until its `run()` has returned; only then does the new transport start, connect as the
    /// current identity and subscribe to what consumers want, planned anew for its kind. Exactly
    /// one transport is active at any moment. Events the old transport reported after the switch
    /// began are dropped (counted as `switchboard.notifier.stale_events`), so no event is
    /// delivered twice; events published while neither transport is subscribed are missed, as
    /// with any reconnect.
    ///
    /// Meanwhile ``connectionStates()`` reports `connecting` (while signed in) instead of the old
    /// transport's `shutDown`, then the new transport's states. When the switch completes,
    /// ``transportKind`` names the new transport and a ``TransportChangedEvent`` is published on
    /// the ``broker``. Switches are carried out one at a time, in order.
    ///
    /// Before ``run()`` the transport is replaced at once. The call returns when the new transport
    /// is running with its connection and subscriptions requested, not when the server has
    /// acknowledged them: watch ``connectionStates()`` for `connected`. Cancelling the caller stops
    /// its wait, not the switch.
    /// - Parameter selection: The transport to run from now on, and where that choice came from
    ///   (for logs and the ``TransportChangedEvent``).
    /// - Throws: ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` when the notifier has no transport
    ///   factory, or the factory throws or makes a transport of another kind; the error is also
    ///   reported on ``errors()`` and the broker, and the current transport stays.
    ///   ``/SwitchboardCore/SwitchboardError/Code/shutDown`` after ``shutDown()``, or when it happens during the
    ///   switch. `CancellationError` when the caller is cancelled while waiting.
    public func switchTransport(to selection: TransportSelection) async throws {
        while switching.isPending { try await waitForPendingSwitch() }
        guard lifecycle != .shutDown else {
            throw SwitchboardError(code: .shutDown, message: "the notifier is shut down; cannot switch to \(selection)")
        }
        let current = transportKind
        guard selection.kind != current else {
            logger.debug("transport already active; nothing to switch", metadata: [
                "switchboard.transport.requested": "\(selection)"])
            return
        }
        let next: any EventTransport
        do {
            guard let transportFactory else {
                throw SwitchboardError(
                    code: .invalidConfiguration,
                    message: "cannot switch to \(selection): the notifier was created without a transport factory")
            }
            next = try selection.makeTransport(with: transportFactory)
        } catch {
            let failure = SwitchboardError.wrapping(error, code: .invalidConfiguration)
            metrics.countRefusedSwitch(to: selection.kind)
            logger.info("transport switch refused; keeping the current transport", metadata: [
                "switchboard.transport.requested": "\(selection)", "switchboard.error": "\(failure)"])
            report(failure)
            throw failure
        }
        beginSwitch(to: next, selection: selection)
        try await waitForPendingSwitch()
    }

    /// Reports a transport setting that cannot be used (say an unknown value read from a watched
    /// configuration) on ``errors()`` and the broker; the current transport stays.
    /// - Parameter error: What is wrong with the setting.
    package func rejectTransportSetting(_ error: SwitchboardError) {
        logger.info("transport setting rejected; keeping the current transport", metadata: [
            "switchboard.error": "\(error)"])
        report(error)
    }

    // MARK: Switching

    /// Stops the current transport and, before ``run()``, puts `next` in its place at once;
    /// while running, `next` takes over once the current one's `run()` has returned.
    func beginSwitch(to next: any EventTransport, selection: TransportSelection) {
        let previous = transport
        let from = transportKind
        logger.debug("switching transport: stopping the current one", metadata: [
            "switchboard.transport.to": "\(selection)"])
        // From here on, whatever the previous transport still reports is stale.
        let takeover = switching.begin(to: next, from: from, selection: selection, running: lifecycle == .running)
        // Its subscriptions end with it; the new transport gets a plan of its own.
        _ = subscriptions.table.removeAll()
        subscriptions.forgetReportedFailures()
        previous.shutDown()
        guard takeover == .afterPreviousStops else {
            activate(next, from: from, selection: selection, staleEvents: 0)
            return
        }
        if session.switchBegan(from: from, to: next.kind) {
            // The old transport's `shutDown` is not the end for consumers: the connection is
            // being made again, over the new transport.
            setConnectionState(.connecting(attempt: 1), transport: next.kind)
        }
    }

    /// The previous transport's `run()` returned: start the new one, connect and subscribe.
    func completeSwitch(_ pending: Switching.Pending, previousError: (any Error)?) {
        if let previousError {
            logger.debug("previous transport ended with an error", metadata: ["switchboard.error": "\(previousError)"])
        }
        activate(pending.next, from: pending.from, selection: pending.selection, staleEvents: pending.staleEvents)
        slotContinuation.yield(TransportSlot(generation: switching.generation, transport: pending.next))
        // Signed out, suspended or offline, the new transport connects at sign-in, at `resume()`
        // or when the path returns.
        if !connectIfActive() { setConnectionState(.idle, transport: pending.next.kind) }
        reconcile()
        for waiter in switching.takeWaiters() { waiter.resume() }
    }

    /// Makes `next` the active transport and announces it.
    private func activate(_ next: any EventTransport, from: TransportKind, selection: TransportSelection, staleEvents: Int) {
        transport = next
        activeKind.withLock { $0 = next.kind }
        metrics = metrics.forTransport(next.kind)
        logger[metadataKey: "switchboard.transport"] = "\(next.kind)"
        metrics.countSwitch(from: from, to: next.kind)
        logger.info("transport switched", metadata: [
            "switchboard.transport.from": "\(from)", "switchboard.transport.source": "\(selection.source)",
            "switchboard.transport.stale_events": "\(staleEvents)"])
        broker.publish(TransportChangedEvent(from: from, to: next.kind, source: selection.source))
    }

    /// Something a stopped transport reported after the switch away from it began.
    func dropStale(_ event: TransportEvent) {
        guard case .received(let envelope) = event else {
            logger.trace("ignoring a stopped transport's report", metadata: ["switchboard.report": "\(event)"])
            return
        }
        metrics.staleEvents.increment()
        switching.countStaleEvent()
        logger.debug("dropping an event from the stopped transport", metadata: [
            "switchboard.subscription": "\(envelope.subscription)"])
    }

    /// Suspends until the pending switch completes (at once if there is none).
    /// - Throws: ``SwitchboardError/Code/shutDown`` if the notifier shuts down first;
    ///   `CancellationError` if the caller is cancelled.
    func waitForPendingSwitch() async throws {
        guard switching.isPending else { return }
        let id = takeConsumerID()
        let inputs = inputContinuation
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                switching.addWaiter(id, continuation)
            }
        } onCancel: {
            inputs.yield(.switchWaitCancelled(id))
        }
    }
}
