import SwitchboardCore

extension ServerSentEventsTransport {
    /// One subscription per channel: each stream's own channel, and a family's wildcard for its
    /// merged stream, which then also serves the family's other wanted streams (the server routes
    /// by channel and the notifier by `eventType`, so one event reaches each stream once). The key
    /// is `sse/` and the channel. A channel that breaks the naming rules fails its streams with
    /// `invalidChannel`.
    public func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan {
        let mergedFamilies = Set(streams.filter(\.isMerged).compactMap(\.family))
        var plan = SubscriptionPlan()
        for stream in streams.sorted() {
            let relative = stream.family.map { mergedFamilies.contains($0) ? "\($0)/*" : stream.channel } ?? stream.channel
            let path = StreamAddress.channelPath(relative, namespace: namespace, userId: identity.userId)
            do {
                let channel = try ChannelPath(path, allowWildcard: true).description
                plan.add(SubscriptionRequest(key: SubscriptionKey("sse/\(channel)"), target: .channel(channel)), serving: [stream.name])
            } catch let error as SwitchboardError {
                plan.fail([stream.name], with: error)
            } catch {
                plan.fail([stream.name], with: SwitchboardError(code: .invalidChannel, message: "invalid channel \(path): \(error)"))
            }
        }
        return plan
    }
}
