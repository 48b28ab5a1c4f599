import SwitchboardCore

/// One subscription the notifier wants the transport to hold, and the streams it serves.
package struct PlannedSubscription: Equatable, Sendable {
    package var request: SubscriptionRequest
    package var serves: Set<StreamID>

    package init(request: SubscriptionRequest, serves: Set<StreamID>) {
        self.request = request
        self.serves = serves
    }
}

/// Turns the set of streams consumers asked for into the fewest subscriptions that cover them.
///
/// AppSync Events: a family (`device`, `organization`) is served by one wildcard channel
/// (`…/device/*`) when its merged stream or two or more of its streams are wanted, otherwise by
/// the one exact channel; other streams use their exact channel. A user-level `…/user/{id}/*`
/// wildcard would be fewer still, but it would pull every event class (token revocations
/// included) to clients that never asked for them, so the family is the widest grouping used.
///
/// GraphQL: one subscription per legacy root field, shared by every stream it feeds.
package enum SubscriptionPlanner {
    package struct Plan: Equatable, Sendable {
        /// The subscriptions to hold, by key.
        package var subscriptions: [SubscriptionKey: PlannedSubscription] = [:]
        /// Streams that cannot be subscribed, with the reason (for example an invalid `userId`).
        package var failures: [StreamID: SwitchboardError] = [:]
    }

    package static func plan(
        for streams: Set<StreamID>,
        kind: TransportKind,
        identity: TransportIdentity,
        namespace: String
    ) -> Plan {
        switch kind {
        case .appsync: appSyncPlan(for: streams, identity: identity, namespace: namespace)
        case .graphql: graphQLPlan(for: streams, identity: identity)
        }
    }

    private static func appSyncPlan(for streams: Set<StreamID>, identity: TransportIdentity, namespace: String) -> Plan {
        var plan = Plan()
        var byFamily: [String: [StreamDescriptor]] = [:]
        var channels: [String: Set<StreamID>] = [:]
        for id in streams {
            let descriptor = StreamCatalog.descriptor(id)
            if let family = descriptor.family {
                byFamily[family, default: []].append(descriptor)
            } else {
                channels[descriptor.channel, default: []].insert(id)
            }
        }
        for (family, members) in byFamily {
            if members.count >= 2 || members.contains(where: \.isMerged) {
                channels["\(family)/*", default: []].formUnion(members.map(\.id))
            } else if let only = members.first {
                channels[only.channel, default: []].insert(only.id)
            }
        }
        for (relative, serves) in channels {
            let path = StreamCatalog.channel(relative, namespace: namespace, userId: identity.userId)
            do {
                let channel = try ChannelPath(path, allowWildcard: true)
                let key = SubscriptionKey(channel.description)
                plan.subscriptions[key] = PlannedSubscription(
                    request: SubscriptionRequest(key: key, target: .channel(channel.description)), serves: serves)
            } catch {
                let failure = (error as? SwitchboardError)
                    ?? SwitchboardError(code: .invalidChannel, message: "invalid channel \(path): \(error)")
                for id in serves { plan.failures[id] = failure }
            }
        }
        return plan
    }

    private static func graphQLPlan(for streams: Set<StreamID>, identity: TransportIdentity) -> Plan {
        var plan = Plan()
        for id in streams {
            let legacy = StreamCatalog.descriptor(id).legacy
            let key = SubscriptionKey("graphql/\(legacy.field)")
            if plan.subscriptions[key] == nil {
                plan.subscriptions[key] = PlannedSubscription(
                    request: SubscriptionRequest(key: key, target: .graphQL(legacy.operation(for: identity))), serves: [])
            }
            plan.subscriptions[key]?.serves.insert(id)
        }
        return plan
    }
}
