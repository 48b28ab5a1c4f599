import Foundation

/// An organization's AI settings changed.
///
/// On the legacy transport it decodes from a GraphQL `OrganizationState` (other fields are
/// ignored); its `AIControlSetting` field decodes into ``aiControlSetting``.
public struct AISettingsOutput: SwitchboardEvent, Equatable, Hashable, Codable, PayloadModel {
    /// The organization category.
    public static let category = EventCategory.organization
    /// `organization.aiSettings`.
    public static let eventName = "organization.aiSettings"

    /// The AppSync Events type, `organization/aiSettingsChanged`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// The organization.
    public var orgId: String?
    /// The AI settings.
    public var aiControlSetting: Switchboard.AIControlSetting?

    /// The AI settings under their legacy name.
    @available(*, deprecated, renamed: "aiControlSetting")
    public var AIControlSetting: Switchboard.AIControlSetting? { aiControlSetting }

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - orgId: The organization.
    ///   - aiControlSetting: The AI settings.
    public init(
        eventType: String? = nil, timestamp: Date? = nil, orgId: String? = nil,
        aiControlSetting: Switchboard.AIControlSetting? = nil
    ) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.orgId = orgId
        self.aiControlSetting = aiControlSetting
    }

    /// Every wire field this model reads, legacy names included.
    package static let knownFieldNames = PayloadKey.names(
        .eventType, .timestamp, .orgId, .aiControlSetting, .legacyAIControlSetting
    )

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeHeader(from: fields)
        orgId = try fields.decodeIfPresent(String.self, forKey: .orgId)
        aiControlSetting = try fields.decodeAIControlSettingIfPresent()
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeHeader(into: &container)
        try container.encodeIfPresent(orgId, forKey: .orgId)
        try container.encodeIfPresent(aiControlSetting, forKey: .aiControlSetting)
    }
}
