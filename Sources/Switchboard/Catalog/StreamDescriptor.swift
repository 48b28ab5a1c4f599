import Foundation
import SwitchboardCore

/// A typed event that has a place in the stream catalog.
package protocol CatalogEvent: SwitchboardEvent, Codable, Hashable, PayloadDecodable {
    /// Every wire field the model understands, legacy names included; others are logged at debug.
    static var knownFieldNames: Set<String> { get }
    /// The `eventType` AppSync Events carries; nil from the legacy transport.
    var eventType: String? { get set }
    /// The `timestamp` AppSync Events carries; nil from the legacy transport.
    var timestamp: Date? { get set }
}

/// The name of one consumer stream, such as `devicePresence`.
package struct StreamID: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    package var rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }
    package var description: String { rawValue }
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One consumer stream, declared once in ``StreamCatalog``: where it lives on the backend and what
/// it yields. Transports read its ``address`` to plan their subscriptions.
package struct StreamDescriptor: Sendable {
    /// The stream's name; it appears in ``EventMetadata/stream``.
    package let id: StreamID
    /// The channel family (`device`, `organization`) whose streams one wildcard can serve, if any.
    package let family: String?
    /// The AppSync channel below `{namespace}/user/{userId}/`, e.g. `device/presenceChanged`;
    /// a merged stream's channel ends in `/*`.
    package let channel: String
    /// The AppSync `eventType`s routed to this stream.
    package let eventTypes: Set<String>
    /// The typed model the stream yields.
    package let outputType: any CatalogEvent.Type

    /// True for a merged stream, which covers its whole family.
    package var isMerged: Bool { channel.hasSuffix("/*") }

    /// The stream as transports plan for it.
    package var address: StreamAddress {
        StreamAddress(name: id.rawValue, family: family, channel: channel, eventTypes: eventTypes)
    }

    package init(
        id: StreamID,
        family: String?,
        channel: String,
        eventTypes: Set<String>,
        outputType: any CatalogEvent.Type
    ) {
        self.id = id
        self.family = family
        self.channel = channel
        self.eventTypes = eventTypes
        self.outputType = outputType
    }
}

// Each model reads a parsed document through a concrete entry point, so the notifier's path (which
// reaches the model through `any CatalogEvent.Type`) runs code specialized for the model and
// ``DocumentFields`` rather than generic code that looks up type metadata for every field.
extension DeviceStateOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension DevicePresenceOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension DeviceRecordingOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension DeviceFirmwareOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension ArchiveStateOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension OrganizationStateOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension LicenseStateOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension PlanStateOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension AISettingsOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension RoleChangeOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
extension UserTokenRevokeOutput: CatalogEvent { package init(document: DocumentFields) throws { try self.init(fields: document) } }
