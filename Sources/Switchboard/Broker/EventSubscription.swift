/// A token for a handler subscription made with ``EventBroker``.
///
/// The subscription lasts as long as the token: **keep it alive** (store it in a property) for as
/// long as you want events. Calling ``cancel()`` or releasing the last reference to the token
/// removes the subscriber at once; after `cancel()` returns, the broker starts no new call to the
/// handler (a call already running on another thread may still finish).
public final class EventSubscription: Sendable, Hashable {
    private let broker: EventBroker
    private let id: UInt64

    init(broker: EventBroker, id: UInt64) {
        self.broker = broker
        self.id = id
    }

    deinit {
        broker.removeSubscriber(id)
    }

    /// Whether the subscriber is still registered with the broker.
    public var isActive: Bool {
        broker.isSubscribed(id)
    }

    /// Removes the subscriber. Calling it more than once has no further effect.
    public func cancel() {
        broker.removeSubscriber(id)
    }

    /// Tokens are equal only when they are the same object.
    public static func == (lhs: EventSubscription, rhs: EventSubscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
