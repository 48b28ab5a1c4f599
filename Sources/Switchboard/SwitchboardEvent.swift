import Foundation
import SwitchboardCore

/// The broad group an event belongs to; ``EventBroker`` can subscribe to a whole category.
public enum EventCategory: String, Sendable, Hashable, CaseIterable {
    /// Device presence, recording and firmware events, and archive (recorded video) events.
    case device
    /// Organization license, plan and AI-settings events.
    case organization
    /// Events about the signed-in user: role changes and token revocation.
    case user
    /// Events about Switchboard itself: connection state, errors, catch-up progress.
    case system
}

/// A value that travels through ``EventBroker``.
public protocol SwitchboardEvent: Sendable {
    /// The category every value of this type belongs to.
    static var category: EventCategory { get }
    /// A stable name for metrics and logs, such as `device.presence`.
    static var eventName: String { get }
}

/// Standard metadata every brokered event carries.
public struct EventMetadata: Sendable, Hashable {
    /// A unique id for this delivery of the event.
    public var eventId: String
    /// When the event was received (or created, for local events).
    public var receivedAt: Date
    /// The transport that carried it, ``/SwitchboardCore/TransportKind/catchUp`` for an event a
    /// catch-up read from the backend's log; nil for events made inside the process.
    public var transport: TransportKind?
    /// The name of the stream it was routed to (for example `devicePresence`); nil for local events.
    public var stream: String?

    /// Creates metadata.
    /// - Parameters:
    ///   - eventId: A unique id; by default a new UUID-shaped one, unique within the process
    ///     (made without a system call, unlike `UUID()`).
    ///   - receivedAt: The receive time; now by default.
    ///   - transport: The carrying transport, if any.
    ///   - stream: The stream name, if any.
    public init(eventId: String = EventIdentifiers.make(), receivedAt: Date = Date(), transport: TransportKind? = nil, stream: String? = nil) {
        self.eventId = eventId
        self.receivedAt = receivedAt
        self.transport = transport
        self.stream = stream
    }
}

/// An event together with its metadata, as ``EventBroker`` delivers it.
public struct EventRecord<Event: SwitchboardEvent>: Sendable {
    /// The metadata.
    public var metadata: EventMetadata
    /// The event.
    public var event: Event

    /// Creates a record.
    public init(metadata: EventMetadata, event: Event) {
        self.metadata = metadata
        self.event = event
    }
}

extension EventRecord: Equatable where Event: Equatable {}
