/// Which wire protocol carries the events. Exactly one is active at a time.
public enum TransportKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The legacy GraphQL-over-WebSocket subscriptions.
    case graphql
    /// AWS AppSync Events.
    case appsync

    public var description: String { rawValue }
}
