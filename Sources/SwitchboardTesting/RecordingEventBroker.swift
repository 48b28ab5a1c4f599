import Switchboard
import SwitchboardCore

/// A real ``/Switchboard/EventBroker`` that records every publish and can hold events until a test delivers them.
///
/// Pass ``broker`` to the code under test wherever an `EventBroker` is expected; subscribers,
/// streams, history and dead letters behave exactly as with a plain broker. In
/// ``DeliveryMode/immediate`` mode publishes are delivered at once; in ``DeliveryMode/manual``
/// mode they wait (and are not yet in the broker's history) until ``deliverNext()`` or
/// ``deliverAll()``.
public final class RecordingEventBroker: Sendable {
    /// When published events reach subscribers.
    public enum DeliveryMode: Sendable, Hashable {
        /// Deliver every publish before `publish` returns, as a plain broker does.
        case immediate
        /// Hold every publish until ``RecordingEventBroker/deliverNext()`` or ``RecordingEventBroker/deliverAll()``.
        case manual
    }

    private struct State {
        var mode: DeliveryMode
        var published: [AnyEventRecord] = []
        var pending: [AnyEventRecord] = []
    }

    /// The wrapped broker; give it to the code under test.
    public let broker: EventBroker
    private let state: LockedValue<State>

    /// Creates a recording broker around a new ``/Switchboard/EventBroker``.
    /// - Parameters:
    ///   - deliveryMode: Whether publishes are delivered at once or held.
    ///   - configuration: The wrapped broker's configuration.
    public init(deliveryMode: DeliveryMode = .immediate, configuration: EventBroker.Configuration = .init()) {
        let state = LockedValue(State(mode: deliveryMode))
        self.state = state
        self.broker = EventBroker(
            configuration: configuration,
            logger: nil,
            metricsFactory: nil,
            interceptor: { record in
                state.withLock { state in
                    state.published.append(record)
                    guard state.mode == .manual else { return false }
                    state.pending.append(record)
                    return true
                }
            }
        )
    }

    /// The delivery mode. Switching to ``DeliveryMode/immediate`` does not deliver events already held.
    public var deliveryMode: DeliveryMode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    /// Publishes through ``broker``.
    /// - Parameters:
    ///   - event: The event.
    ///   - metadata: Its metadata.
    public func publish<E: SwitchboardEvent>(_ event: E, metadata: EventMetadata = EventMetadata()) {
        broker.publish(event, metadata: metadata)
    }

    /// Every record published since creation or the last ``reset()``, in publish order,
    /// whether delivered yet or not.
    public var published: [AnyEventRecord] {
        state.withLock { $0.published }
    }

    /// The published events of type `E`, in publish order.
    /// - Parameter type: The event type.
    public func published<E: SwitchboardEvent>(_ type: E.Type) -> [E] {
        published.compactMap { $0.event(as: E.self) }
    }

    /// The first published event of type `E` that satisfies `predicate`, or nil.
    /// - Parameters:
    ///   - type: The event type.
    ///   - predicate: The condition; any event of the type by default.
    public func expectEvent<E: SwitchboardEvent>(ofType type: E.Type, matching predicate: (E) -> Bool = { _ in true }) -> E? {
        published(E.self).first(where: predicate)
    }

    /// How many published events are held, waiting for delivery.
    public var pendingCount: Int {
        state.withLock { $0.pending.count }
    }

    /// Delivers the oldest held event to subscribers.
    /// - Returns: False when nothing was held.
    @discardableResult
    public func deliverNext() -> Bool {
        let next = state.withLock { state -> AnyEventRecord? in
            state.pending.isEmpty ? nil : state.pending.removeFirst()
        }
        guard let next else { return false }
        broker.deliver(next)
        return true
    }

    /// Delivers held events until none is left, including events that handlers publish meanwhile
    /// (so a handler that always publishes again never lets this return).
    /// - Returns: How many events were delivered.
    @discardableResult
    public func deliverAll() -> Int {
        var count = 0
        while deliverNext() { count += 1 }
        return count
    }

    /// Forgets the recorded and the held events (held events are never delivered).
    /// The broker's subscribers, history and dead letters are left as they are.
    public func reset() {
        state.withLock { state in
            state.published.removeAll()
            state.pending.removeAll()
        }
    }
}
