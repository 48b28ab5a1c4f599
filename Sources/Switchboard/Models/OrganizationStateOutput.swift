import Foundation

/// An organization event from the merged organization stream: license, plan or AI settings.
///
/// An AppSync Events payload sets the one field its `eventType` is about; a legacy GraphQL
/// `OrganizationState` may set several. The legacy field `AIControlSetting` decodes into
/// ``aiControlSetting`` (the new name wins when both are present).
public struct OrganizationStateOutput: SwitchboardEvent, Equatable, Hashable, Codable, PayloadModel {
    /// The organization category.
    public static let category = EventCategory.organization
    /// `organization`.
    public static let eventName = "organization"

    /// The AppSync Events type, such as `organization/planChanged`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// The organization.
    public var orgId: String?
    /// The license phase; set on a license change.
    public var licensePhase: LicensePhase?
    /// Whether the organization is on the free plan; set on a plan change.
    public var isFreePlan: Bool?
    /// The AI settings; set on an AI-settings change.
    public var aiControlSetting: Switchboard.AIControlSetting?

    /// The AI settings under their legacy name.
    @available(*, deprecated, renamed: "aiControlSetting")
    public var AIControlSetting: Switchboard.AIControlSetting? { aiControlSetting }

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - orgId: The organization.
    ///   - licensePhase: The license phase.
    ///   - isFreePlan: Whether the organization is on the free plan.
    ///   - aiControlSetting: The AI settings.
    public init(
        eventType: String? = nil, timestamp: Date? = nil, orgId: String? = nil,
        licensePhase: LicensePhase? = nil, isFreePlan: Bool? = nil,
        aiControlSetting: Switchboard.AIControlSetting? = nil
    ) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.orgId = orgId
        self.licensePhase = licensePhase
        self.isFreePlan = isFreePlan
        self.aiControlSetting = aiControlSetting
    }

    /// Every wire field this model reads, legacy names included.
    package static let knownFieldNames = PayloadKey.names(
        .eventType, .timestamp, .orgId, .licensePhase, .isFreePlan, .aiControlSetting, .legacyAIControlSetting
    )

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeHeader(from: fields)
        orgId = try fields.decodeIfPresent(String.self, forKey: .orgId)
        licensePhase = try fields.decodeIfPresent(LicensePhase.self, forKey: .licensePhase)
        isFreePlan = try fields.decodeIfPresent(Bool.self, forKey: .isFreePlan)
        aiControlSetting = try fields.decodeAIControlSettingIfPresent()
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeHeader(into: &container)
        try container.encodeIfPresent(orgId, forKey: .orgId)
        try container.encodeIfPresent(licensePhase, forKey: .licensePhase)
        try container.encodeIfPresent(isFreePlan, forKey: .isFreePlan)
        try container.encodeIfPresent(aiControlSetting, forKey: .aiControlSetting)
    }
}

extension PayloadFields {
    /// Decodes `aiControlSetting`, falling back to the legacy `AIControlSetting` when it is
    /// missing or null.
    func decodeAIControlSettingIfPresent() throws -> AIControlSetting? {
        try decodeIfPresent(AIControlSetting.self, forKey: .aiControlSetting)
            ?? decodeIfPresent(AIControlSetting.self, forKey: .legacyAIControlSetting)
    }
}
