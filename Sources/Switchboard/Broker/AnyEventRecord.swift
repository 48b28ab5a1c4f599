/// A type-erased ``EventRecord``: metadata plus an event of any ``SwitchboardEvent`` type.
///
/// ``EventBroker`` uses it for history, category subscriptions and dead letters.
public struct AnyEventRecord: Sendable {
    /// The metadata the event was published with.
    public var metadata: EventMetadata
    /// The event.
    public var event: any SwitchboardEvent

    /// Creates a record.
    /// - Parameters:
    ///   - metadata: The event's metadata.
    ///   - event: The event.
    public init(metadata: EventMetadata, event: any SwitchboardEvent) {
        self.metadata = metadata
        self.event = event
    }

    /// Creates a type-erased copy of a typed record.
    /// - Parameter record: The typed record.
    public init<E: SwitchboardEvent>(_ record: EventRecord<E>) {
        self.init(metadata: record.metadata, event: record.event)
    }

    /// The ``SwitchboardEvent/eventName`` of the event's type.
    public var eventName: String { type(of: event).eventName }

    /// The ``SwitchboardEvent/category`` of the event's type.
    public var category: EventCategory { type(of: event).category }

    /// The event as `E`, or nil if it is of another type.
    /// - Parameter type: The expected event type.
    public func event<E: SwitchboardEvent>(as type: E.Type) -> E? {
        event as? E
    }

    /// The record as a typed ``EventRecord``, or nil if the event is of another type.
    /// - Parameter type: The expected event type.
    public func record<E: SwitchboardEvent>(as type: E.Type) -> EventRecord<E>? {
        guard let typed = event as? E else { return nil }
        return EventRecord(metadata: metadata, event: typed)
    }
}

extension AnyEventRecord {
    /// ``record(as:)`` for the broker's typed subscribers, which see only events of exactly their
    /// type: when the event is of exactly type `E`, it is taken out of its existential without
    /// the runtime's general dynamic cast (several times the cost of the rest of a delivery).
    func typedRecord<E: SwitchboardEvent>(as type: E.Type) -> EventRecord<E>? {
        guard Swift.type(of: event) == E.self else { return record(as: E.self) }
        // Bound first: the property shares its name with `event(as:)`, which keeps the existential
        // from being opened in the call.
        let value: any SwitchboardEvent = event
        let typed = Self.reinterpret(value, as: E.self)
        return EventRecord(metadata: metadata, event: typed)
    }

    /// `event`, of type `E` exactly, as an `E`.
    private static func reinterpret<Event: SwitchboardEvent, E>(_ event: Event, as type: E.Type) -> E {
        unsafeBitCast(event, to: E.self)
    }
}
