import SwitchboardCore

extension SwitchboardEmulator {
    /// Closes every open protocol connection with a close frame carrying `code` and `reason`.
    /// - Parameters:
    ///   - code: The WebSocket close code, such as 1001 or 4000.
    ///   - reason: The close reason.
    /// - Returns: How many connections were told to close.
    @discardableResult
    public func dropAllConnections(code: UInt16 = 1001, reason: String = "") -> Int {
        let outboxes = registry.all
        for outbox in outboxes { outbox.close(code: code, reason: reason) }
        return outboxes.count
    }

    /// Closes every open connection's TCP stream without a WebSocket close frame, as a network
    /// failure would (the client sees the stream end, no close code).
    /// - Returns: How many connections were aborted.
    @discardableResult
    public func abortAllConnections() -> Int { broadcast(.abort) }

    /// Stops every open connection's output (keep-alives and data) for `duration` on the emulator's
    /// clock; queued frames follow afterwards. Pongs to the client's pings are held too, from
    /// this call until the stall ends, so a client that checks its connection with a ping finds
    /// it dead, as on a broken network path. Close frames still go out.
    /// - Parameter duration: How long to stall.
    /// - Returns: How many connections stall.
    @discardableResult
    public func stallConnections(for duration: Duration) -> Int { broadcast(.stall(duration)) }

    /// Sends one text frame that is not JSON to every open connection.
    /// - Returns: How many connections got it.
    @discardableResult
    public func sendGarbageFrame() -> Int { broadcast(.garbage) }

    /// Refuses new connections with `connection_error` (`UnauthorizedException`) whatever their
    /// credentials: the next `count` connections, or every one until ``resetFaults()`` when nil.
    /// - Parameter count: How many connections to refuse, or nil for all until reset.
    public func rejectAuthentication(nextConnections count: Int?) {
        faults.rejectAuthentication(nextConnections: count)
    }

    /// Delays every outbound frame by `latency` on the emulator's clock (nil: no delay).
    /// - Parameter latency: The delay per frame.
    public func setFrameLatency(_ latency: Duration?) { faults.frameLatency = latency }

    /// Drops events on their way to the subscriptions of one protocol, as a backend whose
    /// pipeline to one transport loses events would: AppSync Events `data` frames
    /// (`.appsync`), or legacy GraphQL results on `/graphql` in every dialect (`.graphql`). The
    /// other protocol still gets every event, so a dual run (`switchboard shadow`) sees the
    /// divergence on exactly that side. Connections, subscriptions and keep-alives are untouched.
    /// - Parameters:
    ///   - kind: The protocol whose subscriptions lose events.
    ///   - every: Drop one of every `every` events (1, the default: all of them); nil stops
    ///     dropping. Counted per protocol across its subscriptions.
    public func dropEvents(to kind: TransportKind, every: Int? = 1) {
        faults.dropEvents(to: kind, every: every)
    }

    /// Clears the auth rejection, the per-frame latency, the sync stream fault, the sync
    /// round-trip latency and dropped events.
    public func resetFaults() { faults.reset() }

    private func broadcast(_ item: Outgoing) -> Int {
        let outboxes = registry.all
        for outbox in outboxes { outbox.send(item) }
        return outboxes.count
    }
}
