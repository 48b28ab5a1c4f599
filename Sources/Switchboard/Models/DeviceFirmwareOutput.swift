import Foundation

/// A device's firmware update state changed.
///
/// On the legacy transport it decodes from a GraphQL `DeviceState` (other fields are ignored).
public struct DeviceFirmwareOutput: SwitchboardEvent, Equatable, Hashable, Codable, DevicePayloadModel {
    /// The device category.
    public static let category = EventCategory.device
    /// `device.firmware`.
    public static let eventName = "device.firmware"

    /// The AppSync Events type, `device/firmwareUpdated`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// The device's organization.
    public var orgId: String?
    /// The device's site (the legacy contract calls it `deviceGroupID`).
    public var siteId: String?
    /// The device's IoT thing name.
    public var thingName: String?
    /// The device model variant.
    public var derivant: String?
    /// The device's MAC address.
    public var mac: String?
    /// The firmware update state, −1…14 by contract; other values are kept as sent.
    public var fwUpdateState: Int?

    /// The site under its legacy name.
    @available(*, deprecated, renamed: "siteId")
    public var deviceGroupID: String? { siteId }

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - orgId: The device's organization.
    ///   - siteId: The device's site.
    ///   - thingName: The device's IoT thing name.
    ///   - derivant: The device model variant.
    ///   - mac: The device's MAC address.
    ///   - fwUpdateState: The firmware update state.
    public init(
        eventType: String? = nil, timestamp: Date? = nil,
        orgId: String? = nil, siteId: String? = nil, thingName: String? = nil,
        derivant: String? = nil, mac: String? = nil, fwUpdateState: Int? = nil
    ) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.orgId = orgId
        self.siteId = siteId
        self.thingName = thingName
        self.derivant = derivant
        self.mac = mac
        self.fwUpdateState = fwUpdateState
    }

    /// Every wire field this model reads, legacy names included.
    package static let knownFieldNames = PayloadKey.deviceFieldNames.union(PayloadKey.names(.fwUpdateState))

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeDeviceFields(from: fields)
        fwUpdateState = try fields.decodeIntegerIfPresent(Int.self, forKey: .fwUpdateState)
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeDeviceFields(into: &container)
        try container.encodeIfPresent(fwUpdateState, forKey: .fwUpdateState)
    }
}
