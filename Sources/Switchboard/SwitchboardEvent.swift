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
    /// An id as it is kept: the process's counter, made into text only when it is read (most
    /// deliveries never read it), or text given by the caller.
    enum Identifier: Sendable {
        case counted(UInt64)
        case text(String)
    }

    private var identifier: Identifier

    /// A unique id for this delivery of the event.
    public var eventId: String {
        get {
            switch identifier {
            case .counted(let number): EventIdentifiers.text(number)
            case .text(let text): text
            }
        }
        set { identifier = .text(newValue) }
    }
    /// When the event was received (or created, for local events).
    public var receivedAt: Date
    /// The transport that carried it, ``/SwitchboardCore/TransportKind/catchUp`` for an event a
    /// catch-up read from the backend's log; nil for events made inside the process.
    public var transport: TransportKind?
    /// The name of the stream it was routed to (for example `devicePresence`); nil for local events.
    public var stream: String?

    /// Creates metadata with the given id.
    /// - Parameters:
    ///   - eventId: A unique id.
    ///   - receivedAt: The receive time; now by default.
    ///   - transport: The carrying transport, if any.
    ///   - stream: The stream name, if any.
    public init(eventId: String, receivedAt: Date = Date(), transport: TransportKind? = nil, stream: String? = nil) {
        self.init(identifier: .text(eventId), receivedAt: receivedAt, transport: transport, stream: stream)
    }

    /// Creates metadata with a new UUID-shaped id, unique within the process (made without a
    /// system call, unlike `UUID()`, and made into text only when ``eventId`` is read).
    /// - Parameters:
    ///   - receivedAt: The receive time; now by default.
    ///   - transport: The carrying transport, if any.
    ///   - stream: The stream name, if any.
    public init(receivedAt: Date = Date(), transport: TransportKind? = nil, stream: String? = nil) {
        self.init(identifier: .counted(EventIdentifiers.next()), receivedAt: receivedAt, transport: transport, stream: stream)
    }

    /// Metadata with an id as it is kept.
    init(identifier: Identifier, receivedAt: Date, transport: TransportKind?, stream: String?) {
        self.identifier = identifier
        self.receivedAt = receivedAt
        self.transport = transport
        self.stream = stream
    }

    public static func == (lhs: EventMetadata, rhs: EventMetadata) -> Bool {
        let sameId =
            switch (lhs.identifier, rhs.identifier) {
            case (.counted(let left), .counted(let right)): left == right
            default: lhs.eventId == rhs.eventId
            }
        return sameId && lhs.receivedAt == rhs.receivedAt && lhs.transport == rhs.transport && lhs.stream == rhs.stream
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(eventId)
        hasher.combine(receivedAt)
        hasher.combine(transport)
        hasher.combine(stream)
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
