import Foundation

/// A catalog event model, read through ``PayloadFields`` and written under the new field names.
///
/// Each model writes its `init(fields:)` out field by field, so the delivery path reads a parsed
/// document with no table or existential in between; the `Codable` plumbing and the fields models
/// share (the header, the device fields) are written once, here.
package protocol PayloadModel: Codable {
    /// Every wire field this model reads, legacy names included.
    static var knownFieldNames: Set<String> { get }
    /// The AppSync Events type; nil on the legacy transport.
    var eventType: String? { get set }
    /// When the backend published the event; nil on the legacy transport.
    var timestamp: Date? { get set }
    /// Reads the fields from any decoder's container, or straight from a parsed document.
    init<Fields: PayloadFields>(fields: Fields) throws
    /// Writes the fields under their new names; nil fields are omitted.
    func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws
}

extension PayloadModel {
    /// Decodes an AppSync Events or a legacy GraphQL payload; unknown fields are ignored.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        try self.init(fields: decoder.container(keyedBy: PayloadKey.self))
    }

    /// Encodes the event under the new field names; nil fields are omitted.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PayloadKey.self)
        try encodeFields(into: &container)
    }

    /// Reads the metadata AppSync Events payloads carry and legacy payloads do not.
    mutating func decodeHeader<Fields: PayloadFields>(from fields: Fields) throws {
        eventType = try fields.decodeEventTypeIfPresent(forKey: .eventType)
        timestamp = try fields.decodeDateIfPresent(forKey: .timestamp)
    }

    /// Writes the metadata.
    func encodeHeader(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try container.encodeIfPresent(eventType, forKey: .eventType)
        try container.encodeDateIfPresent(timestamp, forKey: .timestamp)
    }
}

/// A model with the fields device and archive payloads share.
package protocol DevicePayloadModel: PayloadModel {
    /// The device's organization.
    var orgId: String? { get set }
    /// The device's site.
    var siteId: String? { get set }
    /// The device's IoT thing name.
    var thingName: String? { get set }
    /// The device model variant.
    var derivant: String? { get set }
    /// The device's MAC address.
    var mac: String? { get set }
}

extension DevicePayloadModel {
    /// Reads the header and the shared device fields. `siteId` falls back to the legacy
    /// `deviceGroupID` when it is missing or null.
    mutating func decodeDeviceFields<Fields: PayloadFields>(from fields: Fields) throws {
        try decodeHeader(from: fields)
        orgId = try fields.decodeIfPresent(String.self, forKey: .orgId)
        siteId = try fields.decodeIfPresent(String.self, forKey: .siteId)
            ?? fields.decodeIfPresent(String.self, forKey: .deviceGroupID)
        thingName = try fields.decodeIfPresent(String.self, forKey: .thingName)
        derivant = try fields.decodeIfPresent(String.self, forKey: .derivant)
        mac = try fields.decodeIfPresent(String.self, forKey: .mac)
    }

    /// Writes the header and the shared device fields, under their new names only.
    func encodeDeviceFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeHeader(into: &container)
        try container.encodeIfPresent(orgId, forKey: .orgId)
        try container.encodeIfPresent(siteId, forKey: .siteId)
        try container.encodeIfPresent(thingName, forKey: .thingName)
        try container.encodeIfPresent(derivant, forKey: .derivant)
        try container.encodeIfPresent(mac, forKey: .mac)
    }
}
