import Foundation

/// The backend revoked the user's tokens; the app should sign the user out.
///
/// ``userId`` and ``revokedAt`` are required: decoding a payload where either is missing, null or
/// malformed throws a `DecodingError`.
public struct UserTokenRevokeOutput: SwitchboardEvent, Equatable, Hashable, Codable, PayloadModel {
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

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init(
            eventType: try fields.decodeEventTypeIfPresent(forKey: .eventType),
            timestamp: try fields.decodeDateIfPresent(forKey: .timestamp),
            userId: try fields.decode(String.self, forKey: .userId),
            revokedAt: try fields.decodeDate(forKey: .revokedAt),
            reason: try fields.decodeIfPresent(TokenRevokeReason.self, forKey: .reason),
            requestId: try fields.decodeIfPresent(String.self, forKey: .requestId)
        )
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeHeader(into: &container)
        try container.encode(userId, forKey: .userId)
        try container.encodeDateIfPresent(revokedAt, forKey: .revokedAt)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(requestId, forKey: .requestId)
    }
}
