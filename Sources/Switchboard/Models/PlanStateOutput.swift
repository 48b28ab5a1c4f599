import Foundation

/// An organization moved to or from the free plan.
///
/// On the legacy transport it decodes from a GraphQL `OrganizationState` (other fields are
/// ignored).
public struct PlanStateOutput: SwitchboardEvent, Equatable, Hashable, Codable, PayloadModel {
    /// The organization category.
    public static let category = EventCategory.organization
    /// `organization.plan`.
    public static let eventName = "organization.plan"

    /// The AppSync Events type, `organization/planChanged`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// The organization.
    public var orgId: String?
    /// Whether the organization is on the free plan.
    public var isFreePlan: Bool?

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - orgId: The organization.
    ///   - isFreePlan: Whether the organization is on the free plan.
    public init(eventType: String? = nil, timestamp: Date? = nil, orgId: String? = nil, isFreePlan: Bool? = nil) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.orgId = orgId
        self.isFreePlan = isFreePlan
    }

    /// Every wire field this model reads.
    package static let knownFieldNames = PayloadKey.names(.eventType, .timestamp, .orgId, .isFreePlan)

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeHeader(from: fields)
        orgId = try fields.decodeIfPresent(String.self, forKey: .orgId)
        isFreePlan = try fields.decodeIfPresent(Bool.self, forKey: .isFreePlan)
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeHeader(into: &container)
        try container.encodeIfPresent(orgId, forKey: .orgId)
        try container.encodeIfPresent(isFreePlan, forKey: .isFreePlan)
    }
}
