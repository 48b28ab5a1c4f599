import Foundation

/// An organization's license phase changed.
///
/// On the legacy transport it decodes from a GraphQL `OrganizationState` (other fields are
/// ignored).
public struct LicenseStateOutput: SwitchboardEvent, Equatable, Hashable, Codable, PayloadModel {
    /// The organization category.
    public static let category = EventCategory.organization
    /// `organization.license`.
    public static let eventName = "organization.license"

    /// The AppSync Events type, `organization/licensePhaseChanged`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// The organization.
    public var orgId: String?
    /// The license phase.
    public var licensePhase: LicensePhase?

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - orgId: The organization.
    ///   - licensePhase: The license phase.
    public init(eventType: String? = nil, timestamp: Date? = nil, orgId: String? = nil, licensePhase: LicensePhase? = nil) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.orgId = orgId
        self.licensePhase = licensePhase
    }

    /// Every wire field this model reads.
    package static let knownFieldNames = PayloadKey.names(.eventType, .timestamp, .orgId, .licensePhase)

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeHeader(from: fields)
        orgId = try fields.decodeIfPresent(String.self, forKey: .orgId)
        licensePhase = try fields.decodeIfPresent(LicensePhase.self, forKey: .licensePhase)
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeHeader(into: &container)
        try container.encodeIfPresent(orgId, forKey: .orgId)
        try container.encodeIfPresent(licensePhase, forKey: .licensePhase)
    }
}
