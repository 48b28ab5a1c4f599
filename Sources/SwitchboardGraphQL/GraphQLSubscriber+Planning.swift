import SwitchboardCore

extension GraphQLSubscriber {
    /// One subscription per legacy root field (contract.md §4), shared by every stream it feeds:
    /// `devicePresenceValues()` and `deviceFirmwareValues()` both read `subscribeDeviceState`, and
    /// the results name the `eventType`s they carry, which route them. A stream whose event types
    /// no root field carries fails with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration``.
    /// GraphQL variables have no channel rules, so the identity's ids never fail a stream here.
    public func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        Self.plan(streams: streams, identity: identity)
    }

    /// The plan of ``plan(streams:identity:namespace:)``, for code that plans without a transport.
    public static func plan(streams: Set<StreamAddress>, identity: TransportIdentity) -> SubscriptionPlan {
        var plan = SubscriptionPlan()
        for stream in streams.sorted() {
            guard let legacy = LegacySubscription.covering(stream) else {
                plan.fail([stream.name], with: SwitchboardError(
                    code: .invalidConfiguration,
                    message: "the legacy GraphQL schema has no subscription for the stream \(stream.name) "
                        + "(event types \(stream.eventTypes.sorted().joined(separator: ", ")))"))
                continue
            }
            let key = SubscriptionKey("graphql/\(legacy.field)")
            plan.add(SubscriptionRequest(key: key, target: .graphQL(legacy.operation(for: identity))), serving: [stream.name])
        }
        return plan
    }
}
