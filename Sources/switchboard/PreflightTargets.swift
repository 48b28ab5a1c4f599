import Switchboard
import SwitchboardCore
import SwitchboardGraphQL

/// What `check` subscribes to: every stream of the catalog at its own address on the selected
/// transport, so one run covers any mix of streams an app's consumers may ask for.
///
/// On AppSync Events that is each stream's channel (the nine exact ones and the two family
/// wildcards `…/device/*` and `…/organization/*`, which the notifier uses when a consumer wants
/// two or more streams of a family); on the legacy transport it is the five root-field
/// subscriptions, each reported for every stream it feeds.
struct PreflightTarget: Sendable, Equatable {
    /// The stream's name, as the catalog and `EventMetadata.stream` spell it.
    var stream: String
    /// The wire subscription; streams that share one share the key.
    var request: SubscriptionRequest
    /// The address for people: the channel, or `subscribeDeviceState(userId: u1)`.
    var address: String

    /// The targets of `streams` (every catalog stream when nil) for `identity` on `kind`.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidChannel`` when an id
    ///   breaks the channel naming rules (the app would fail the same way).
    static func all(
        kind: TransportKind, identity: TransportIdentity, namespace: String, streams: [StreamName]? = nil
    ) throws -> [PreflightTarget] {
        let wanted = streams.map { Set($0.map(\.catalogID)) }
        return try StreamCatalog.all.filter { wanted?.contains($0.id) ?? true }.map { descriptor in
            if kind == .graphql, let legacy = LegacySubscription.covering(descriptor.address) {
                let operation = legacy.operation(for: identity)
                let arguments = operation.variables.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                let address = "\(legacy.field)(\(arguments.joined(separator: ", ")))"
                return PreflightTarget(
                    stream: descriptor.id.rawValue,
                    request: SubscriptionRequest(key: SubscriptionKey(address), target: .graphQL(operation)),
                    address: address)
            }
            let path = StreamCatalog.channel(descriptor.channel, namespace: namespace, userId: identity.userId)
            let channel = try ChannelPath(path, allowWildcard: true).description
            return PreflightTarget(
                stream: descriptor.id.rawValue,
                request: SubscriptionRequest(key: SubscriptionKey(channel), target: .channel(channel)),
                address: channel)
        }
    }
}

extension StreamName {
    /// The catalog's name for this stream (`revoke` is `tokenRevoke` there).
    var catalogID: StreamID {
        self == .revoke ? StreamCatalog.tokenRevoke : StreamID(rawValue: rawValue)
    }
}
