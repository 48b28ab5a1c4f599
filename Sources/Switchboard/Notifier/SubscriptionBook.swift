import Logging
import SwitchboardCore

/// The notifier's subscriptions: the ``SubscriptionTable`` of what its transport holds, planned
/// from the streams consumers want, and the streams whose planning failure was reported already
/// (each is reported once per sign-in or switch of transport). It sends the table's commands to
/// the transport.
struct SubscriptionBook {
    /// What the transport holds and which subscription serves each stream.
    var table = SubscriptionTable()
    private var reportedFailures: Set<StreamID> = []

    /// The subscriptions the plan wants that the server has not acknowledged yet.
    var unacknowledged: [SubscriptionTable.Entry] { table.entries.values.filter { !$0.retiring && !$0.established } }

    /// Plans the fewest subscriptions that serve `wanted` for the identity on a transport of
    /// `kind`. Returns the streams that cannot be subscribed and were not reported before, in
    /// stream order, and the commands that bring the table in line with the plan.
    mutating func replan(
        for wanted: Set<StreamID>, kind: TransportKind, identity: TransportIdentity, namespace: String
    ) -> (failures: [(stream: StreamID, error: SwitchboardError)], commands: [SubscriptionTable.Command]) {
        let plan = SubscriptionPlanner.plan(for: wanted, kind: kind, identity: identity, namespace: namespace)
        var failures: [(stream: StreamID, error: SwitchboardError)] = []
        for (stream, error) in plan.failures.sorted(by: { $0.key < $1.key }) where reportedFailures.insert(stream).inserted {
            failures.append((stream, error))
        }
        return (failures, table.apply(plan.subscriptions))
    }

    /// Planning failures are reported again from now on (a new sign-in, a new transport).
    mutating func forgetReportedFailures() { reportedFailures.removeAll() }

    /// Sends `commands` to `transport`. A subscription the transport refuses at once is rejected
    /// in the table, what follows from that is sent, and `refused` hears of it with the streams
    /// it was to serve.
    mutating func send(
        _ commands: [SubscriptionTable.Command], to transport: any EventTransport, logger: Logger,
        refused: (SwitchboardError, Set<StreamID>) -> Void
    ) {
        for command in commands {
            switch command {
            case .subscribe(let request):
                do {
                    logger.debug("subscribing", metadata: ["switchboard.subscription": "\(request.key)"])
                    try transport.subscribe(request)
                } catch {
                    let streams = table.rejected(request.key)
                    send(streams.commands, to: transport, logger: logger, refused: refused)
                    refused(.wrapping(error, code: .invalidConfiguration), streams.streams)
                }
            case .unsubscribe(let key):
                logger.debug("unsubscribing", metadata: ["switchboard.subscription": "\(key)"])
                transport.unsubscribe(key)
            }
        }
    }
}
