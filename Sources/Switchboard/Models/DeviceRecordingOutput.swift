import Foundation

/// A device started or stopped recording.
///
/// On the legacy transport it decodes from a GraphQL `DeviceState` (other fields are ignored).
public struct DeviceRecordingOutput: SwitchboardEvent, Equatable, Hashable, Codable, DevicePayloadModel {
    /// The device category.
    public static let category = EventCategory.device
    /// `device.recording`.
    public static let eventName = "device.recording"

    /// The AppSync Events type, `device/recordingStateChanged`; nil on the legacy transport.
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
    /// Whether the device is recording.
    public var recording: Bool?

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
    ///   - recording: Whether the device is recording.
    public init(
        eventType: String? = nil, timestamp: Date? = nil,
        orgId: String? = nil, siteId: String? = nil, thingName: String? = nil,
        derivant: String? = nil, mac: String? = nil, recording: Bool? = nil
    ) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.orgId = orgId
        self.siteId = siteId
        self.thingName = thingName
        self.derivant = derivant
        self.mac = mac
        self.recording = recording
    }

    /// Every wire field this model reads, legacy names included.
    package static let knownFieldNames = PayloadKey.deviceFieldNames.union(PayloadKey.names(.recording))

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeDeviceFields(from: fields)
        recording = try fields.decodeIfPresent(Bool.self, forKey: .recording)
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeDeviceFields(into: &container)
        try container.encodeIfPresent(recording, forKey: .recording)
    }
}
