import SwitchboardCore

extension AppSyncEventsSubscriber {
    /// The fewest channels that cover `streams`, each under a key that is its channel path.
    ///
    /// A family (`device`, `organization`) is served by one wildcard channel (`…/device/*`) when
    /// its merged stream or two or more of its streams are wanted, otherwise by the one exact
    /// channel; other streams use their exact channel. A user-level `…/user/{id}/*` wildcard would
    /// be fewer still, but it would pull every event class (token revocations included) to clients
    /// that never asked for them, so the family is the widest grouping used. A channel that breaks
    /// the naming rules (a `userId` with a `/`, say) fails the streams it would serve with
    /// ``/SwitchboardCore/SwitchboardError/Code/invalidChannel``.
    public func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        Self.plan(streams: streams, identity: identity, namespace: namespace)
    }

    /// The plan the instance method `plan(streams:identity:namespace:)` answers, for code that plans
    /// without a transport (tests, wrappers, scripted transports).
    public static func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        var byFamily: [String: [StreamAddress]] = [:]
        var channels: [String: Set<String>] = [:]
        for stream in streams {
            if let family = stream.family {
                byFamily[family, default: []].append(stream)
            } else {
                channels[stream.channel, default: []].insert(stream.name)
            }
        }
        for (family, members) in byFamily {
            if members.count >= 2 || members.contains(where: \.isMerged) {
                channels["\(family)/*", default: []].formUnion(members.map(\.name))
            } else if let only = members.first {
                channels[only.channel, default: []].insert(only.name)
            }
        }
        var plan = SubscriptionPlan()
        for (relative, serves) in channels {
            let path = StreamAddress.channelPath(relative, namespace: namespace, userId: identity.userId)
            do {
                let channel = try ChannelPath(path, allowWildcard: true).description
                plan.add(SubscriptionRequest(key: SubscriptionKey(channel), target: .channel(channel)), serving: serves)
            } catch {
                plan.fail(serves, with: (error as? SwitchboardError)
                    ?? SwitchboardError(code: .invalidChannel, message: "invalid channel \(path): \(error)"))
            }
        }
        return plan
    }
}
