import Foundation

/// The backend revoked the user's tokens; the app should sign the user out.
///
/// ``userId`` and ``revokedAt`` are required: a payload without either fails to decode.
public struct UserTokenRevokeOutput: SwitchboardEvent, Equatable, Hashable, Codable {
    /// The user category.
    public static let category = EventCategory.user
    /// `user.tokenRevoke`.
    public static let eventName = "user.tokenRevoke"

    /// The AppSync Events type, `user/tokenRevoked`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// The user whose tokens were revoked.
    public var userId: String
    /// When the tokens were revoked.
    public var revokedAt: Date
    /// Why the tokens were revoked.
    public var reason: TokenRevokeReason?
    /// The id of the backend request that revoked them, for support.
    public var requestId: String?

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - userId: The user whose tokens were revoked.
    ///   - revokedAt: When the tokens were revoked.
    ///   - reason: Why the tokens were revoked.
    ///   - requestId: The id of the backend request that revoked them.
    public init(
        eventType: String? = nil, timestamp: Date? = nil, userId: String, revokedAt: Date,
        reason: TokenRevokeReason? = nil, requestId: String? = nil
    ) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.userId = userId
        self.revokedAt = revokedAt
        self.reason = reason
        self.requestId = requestId
    }

    /// Every wire field this model reads.
    package static let knownFieldNames = PayloadKey.names(
        .eventType, .timestamp, .userId, .revokedAt, .reason, .requestId
    )

    /// Decodes an AppSync Events or a legacy GraphQL payload; unknown fields are ignored.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when `userId` or `revokedAt` is missing, null or malformed.
    public init(from decoder: any Decoder) throws {
        try self.init(fields: decoder.container(keyedBy: PayloadKey.self))
    }

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields container: Fields) throws {
        let header = try PayloadHeader(from: container)
        self.init(
            eventType: header.eventType, timestamp: header.timestamp,
            userId: try container.decode(String.self, forKey: .userId),
            revokedAt: try container.decodeDate(forKey: .revokedAt),
            reason: try container.decodeIfPresent(TokenRevokeReason.self, forKey: .reason),
            requestId: try container.decodeIfPresent(String.self, forKey: .requestId)
        )
    }

    /// Encodes the event; nil fields are omitted.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PayloadKey.self)
        try PayloadHeader(eventType: eventType, timestamp: timestamp).encode(to: &container)
        try container.encode(userId, forKey: .userId)
        try container.encodeDateIfPresent(revokedAt, forKey: .revokedAt)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(requestId, forKey: .requestId)
    }
}
