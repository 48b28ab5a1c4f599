import Foundation

/// The signed-in user's role changed; the app should reload what the user may see.
public struct RoleChangeOutput: SwitchboardEvent, Equatable, Hashable, Codable, PayloadModel {
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

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeHeader(from: fields)
        reason = try fields.decodeIfPresent(String.self, forKey: .reason)
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeHeader(into: &container)
        try container.encodeIfPresent(reason, forKey: .reason)
    }
}
