/// One consumer stream as a transport plans for it: its name, the backend channel it lives on and
/// the contract `eventType`s it carries (contract.md §3).
///
/// The notifier hands a transport the streams consumers want through
/// ``EventTransport/plan(streams:identity:namespace:)``; the transport answers with the
/// subscriptions that cover them in its own terms (an AppSync Events channel, a GraphQL root
/// field, a server-sent events stream). Events are routed back to streams by
/// ``EventEnvelope/eventTypes``, so one subscription may serve several streams.
public struct StreamAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The stream's name, such as `devicePresence`; a plan names the streams a subscription serves
    /// with it.
    public let name: String
    /// The family (`device`, `organization`) whose streams one wildcard channel can serve; nil for a
    /// stream that belongs to none.
    public let family: String?
    /// The channel below `{namespace}/user/{userId}/`, such as `device/presenceChanged`; a merged
    /// stream's ends in `/*` and covers its family.
    public let channel: String
    /// The contract `eventType`s the stream yields, such as `device/presenceChanged`.
    public let eventTypes: Set<String>

    /// Creates an address.
    /// - Parameters:
    ///   - name: The stream's name.
    ///   - family: The channel family, if any.
    ///   - channel: The channel relative to the user's prefix; a merged stream's ends in `/*`.
    ///   - eventTypes: The contract `eventType`s routed to the stream.
    public init(name: String, family: String?, channel: String, eventTypes: Set<String>) {
        self.name = name
        self.family = family
        self.channel = channel
        self.eventTypes = eventTypes
    }

    /// True for a merged stream, which covers its whole family.
    public var isMerged: Bool { channel.hasSuffix("/*") }

    /// The full channel path of `relative` (a stream's ``channel``, or a family wildcard such as
    /// `device/*`) for one user: `{namespace}/user/{userId}/{relative}`. Not validated; see
    /// ``ChannelPath``.
    public static func channelPath(_ relative: String, namespace: String, userId: String) -> String {
        "\(namespace)/user/\(userId)/\(relative)"
    }

    /// This stream's full channel path for one user.
    public func channelPath(namespace: String, userId: String) -> String {
        Self.channelPath(channel, namespace: namespace, userId: userId)
    }

    public var description: String { name }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.name < rhs.name }
}

/// How a transport covers a set of streams: the subscriptions to hold, each with the streams it
/// serves, and the streams it cannot cover, with why.
///
/// A stream should be served by exactly one subscription; the notifier routes each event on a
/// subscription to the streams it serves whose ``StreamAddress/eventTypes`` include one of the
/// event's. Keys are the transport's choice and must be stable: the same stream set for the same
/// identity gives the same keys, so the notifier keeps what it holds when the plan does not change.
public struct SubscriptionPlan: Equatable, Sendable {
    /// One subscription of a plan.
    public struct Subscription: Equatable, Sendable {
        /// What to subscribe to, under which key.
        public var request: SubscriptionRequest
        /// The names of the streams it serves.
        public var serves: Set<String>

        /// Creates a planned subscription.
        public init(request: SubscriptionRequest, serves: Set<String>) {
            self.request = request
            self.serves = serves
        }
    }

    /// The subscriptions to hold, by key.
    public var subscriptions: [SubscriptionKey: Subscription]
    /// The streams that cannot be subscribed, by name, with the reason (an invalid `userId` in a
    /// channel, say): the notifier reports each to the stream's consumers once.
    public var failures: [String: SwitchboardError]

    /// Creates a plan.
    public init(subscriptions: [SubscriptionKey: Subscription] = [:], failures: [String: SwitchboardError] = [:]) {
        self.subscriptions = subscriptions
        self.failures = failures
    }

    /// Adds `streams` to what the subscription `request` serves, adding the subscription if the
    /// plan has none under its key yet (an existing one keeps its request).
    public mutating func add(_ request: SubscriptionRequest, serving streams: some Sequence<String>) {
        subscriptions[request.key, default: Subscription(request: request, serves: [])].serves.formUnion(streams)
    }

    /// Records that `streams` cannot be subscribed, because of `error`.
    public mutating func fail(_ streams: some Sequence<String>, with error: SwitchboardError) {
        for stream in streams { failures[stream] = error }
    }
}
