import Foundation

/// An organization's license phase changed.
///
/// On the legacy transport it decodes from a GraphQL `OrganizationState` (other fields are
/// ignored).
public struct LicenseStateOutput: SwitchboardEvent, Equatable, Hashable, Codable {
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
            orgId: try container.decodeIfPresent(String.self, forKey: .orgId),
            licensePhase: try container.decodeIfPresent(LicensePhase.self, forKey: .licensePhase)
        )
    }

    /// Encodes the event; nil fields are omitted.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PayloadKey.self)
        try PayloadHeader(eventType: eventType, timestamp: timestamp).encode(to: &container)
        try container.encodeIfPresent(orgId, forKey: .orgId)
        try container.encodeIfPresent(licensePhase, forKey: .licensePhase)
    }
}
