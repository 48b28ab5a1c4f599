import Foundation

/// The signed-in user's role changed; the app should reload what the user may see.
public struct RoleChangeOutput: SwitchboardEvent, Equatable, Hashable, Codable {
    /// The user category.
    public static let category = EventCategory.user
    /// `user.role`.
    public static let eventName = "user.role"

    /// The AppSync Events type, `user/roleChanged`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// Why the role changed, as free text.
    public var reason: String?

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - reason: Why the role changed.
    public init(eventType: String? = nil, timestamp: Date? = nil, reason: String? = nil) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.reason = reason
    }

    /// Every wire field this model reads.
    package static let knownFieldNames = PayloadKey.names(.eventType, .timestamp, .reason)

    /// Decodes an AppSync Events or a legacy GraphQL payload; unknown fields are ignored.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        try self.init(fields: decoder.container(keyedBy: PayloadKey.self))
    }

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields container: Fields) throws {
        let header = try PayloadHeader(from: container)
        self.init(
            eventType: header.eventType, timestamp: header.timestamp,
            reason: try container.decodeIfPresent(String.self, forKey: .reason)
        )
    }

    /// Encodes the event; nil fields are omitted.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PayloadKey.self)
        try PayloadHeader(eventType: eventType, timestamp: timestamp).encode(to: &container)
        try container.encodeIfPresent(reason, forKey: .reason)
    }
}
