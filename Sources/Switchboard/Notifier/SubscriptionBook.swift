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

    /// Asks `transport` for the subscriptions that serve `wanted` for the identity. Returns the
    /// streams that cannot be subscribed and were not reported before, in stream order, and the
    /// commands that bring the table in line with the plan.
    ///
    /// A plan that names a stream nobody asked for is read without it; a wanted stream the plan
    /// neither serves nor fails is reported as ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration``,
    /// so a transport's gap never passes silently.
    mutating func replan(
        for wanted: Set<StreamID>, on transport: any EventTransport, identity: TransportIdentity, namespace: String
    ) -> (failures: [(stream: StreamID, error: SwitchboardError)], commands: [SubscriptionTable.Command]) {
        let plan = transport.plan(
            streams: Set(wanted.map { StreamCatalog.descriptor($0).address }), identity: identity, namespace: namespace)
        var planned: [SubscriptionKey: PlannedSubscription] = [:]
        var served: Set<StreamID> = []
        for (key, subscription) in plan.subscriptions {
            let serves = Set(subscription.serves.map(StreamID.init(rawValue:))).intersection(wanted)
            guard !serves.isEmpty else { continue }
            served.formUnion(serves)
            planned[key] = PlannedSubscription(request: subscription.request, serves: serves)
        }
        var problems: [StreamID: SwitchboardError] = [:]
        for (name, error) in plan.failures { problems[StreamID(rawValue: name)] = error }
        for stream in wanted where !served.contains(stream) && problems[stream] == nil {
            problems[stream] = SwitchboardError(
                code: .invalidConfiguration, message: "the \(transport.kind) transport's plan does not cover the stream \(stream)")
        }
        var failures: [(stream: StreamID, error: SwitchboardError)] = []
        for (stream, error) in problems.sorted(by: { $0.key < $1.key })
        where wanted.contains(stream) && reportedFailures.insert(stream).inserted {
            failures.append((stream, error))
        }
        return (failures, table.apply(planned))
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
