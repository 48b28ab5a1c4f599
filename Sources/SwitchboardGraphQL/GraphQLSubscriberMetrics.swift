import CoreMetrics

/// The transport's counters, with dotted names and the dialect as a dimension.
struct GraphQLSubscriberMetrics: Sendable {
    /// Sockets opened and acknowledged.
    let connections: Counter
    /// Reconnects scheduled after a lost connection or a failed attempt.
    let reconnects: Counter
    /// Subscriptions sent (`start` / `subscribe`).
    let subscriptions: Counter
    /// Results delivered.
    let events: Counter
    /// Frames that could not be decoded.
    let decodeFailures: Counter

    init(factory: any MetricsFactory, dialect: GraphQLProtocol) {
        let dimensions = [("protocol", dialect.rawValue)]
        connections = Counter(label: "switchboard.graphql.connections", dimensions: dimensions, factory: factory)
        reconnects = Counter(label: "switchboard.graphql.reconnects", dimensions: dimensions, factory: factory)
        subscriptions = Counter(label: "switchboard.graphql.subscriptions", dimensions: dimensions, factory: factory)
        events = Counter(label: "switchboard.graphql.events", dimensions: dimensions, factory: factory)
        decodeFailures = Counter(label: "switchboard.graphql.decode_failures", dimensions: dimensions, factory: factory)
    }
}
