import Foundation

/// An archive (a recorded video) changed state.
///
/// On the legacy transport it decodes from a GraphQL `ArchiveState`, whose sizes are GraphQL
/// `Float`s (`3000000000.0`, `3.0E9`); integral floats are accepted for ``videoSize`` and
/// ``cloudSize``, a fraction is a decoding error.
public struct ArchiveStateOutput: SwitchboardEvent, Equatable, Hashable, Codable, DevicePayloadModel {
    /// The device category.
    public static let category = EventCategory.device
    /// `archive`.
    public static let eventName = "archive"

    /// The AppSync Events type, `archive/stateChanged`; nil on the legacy transport.
    public var eventType: String?
    /// When the backend published the event; nil on the legacy transport.
    public var timestamp: Date?
    /// The recording device's organization.
    public var orgId: String?
    /// The recording device's site (the legacy contract calls it `deviceGroupID`).
    public var siteId: String?
    /// The recording device's IoT thing name.
    public var thingName: String?
    /// The recording device's model variant.
    public var derivant: String?
    /// The recording device's MAC address.
    public var mac: String?
    /// The archive's identifier.
    public var archiveId: String?
    /// The archive's processing state.
    public var status: ArchiveStatus?
    /// The video's length in seconds.
    public var videoLength: Double?
    /// The video's size in bytes.
    public var videoSize: Int64?
    /// The archive's size in cloud storage, in bytes.
    public var cloudSize: Int64?
    /// Whether the video has an H.265 rendition.
    public var hasH265: Bool?
    /// When the archive was created.
    public var createdAt: Date?

    /// The site under its legacy name.
    @available(*, deprecated, renamed: "siteId")
    public var deviceGroupID: String? { siteId }

    /// Creates an event.
    /// - Parameters:
    ///   - eventType: The AppSync Events type.
    ///   - timestamp: When the backend published the event.
    ///   - orgId: The recording device's organization.
    ///   - siteId: The recording device's site.
    ///   - thingName: The recording device's IoT thing name.
    ///   - derivant: The recording device's model variant.
    ///   - mac: The recording device's MAC address.
    ///   - archiveId: The archive's identifier.
    ///   - status: The archive's processing state.
    ///   - videoLength: The video's length in seconds.
    ///   - videoSize: The video's size in bytes.
    ///   - cloudSize: The archive's size in cloud storage, in bytes.
    ///   - hasH265: Whether the video has an H.265 rendition.
    ///   - createdAt: When the archive was created.
    public init(
        eventType: String? = nil, timestamp: Date? = nil,
        orgId: String? = nil, siteId: String? = nil, thingName: String? = nil,
        derivant: String? = nil, mac: String? = nil,
        archiveId: String? = nil, status: ArchiveStatus? = nil, videoLength: Double? = nil,
        videoSize: Int64? = nil, cloudSize: Int64? = nil, hasH265: Bool? = nil, createdAt: Date? = nil
    ) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.orgId = orgId
        self.siteId = siteId
        self.thingName = thingName
        self.derivant = derivant
        self.mac = mac
        self.archiveId = archiveId
        self.status = status
        self.videoLength = videoLength
        self.videoSize = videoSize
        self.cloudSize = cloudSize
        self.hasH265 = hasH265
        self.createdAt = createdAt
    }

    /// Every wire field this model reads, legacy names included.
    package static let knownFieldNames = PayloadKey.deviceFieldNames.union(
        PayloadKey.names(.archiveId, .status, .videoLength, .videoSize, .cloudSize, .hasH265, .createdAt)
    )

    /// Reads the fields from any decoder's container, or straight from a parsed document.
    package init<Fields: PayloadFields>(fields: Fields) throws {
        self.init()
        try decodeDeviceFields(from: fields)
        archiveId = try fields.decodeIfPresent(String.self, forKey: .archiveId)
        status = try fields.decodeIfPresent(ArchiveStatus.self, forKey: .status)
        videoLength = try fields.decodeIfPresent(Double.self, forKey: .videoLength)
        videoSize = try fields.decodeIntegerIfPresent(Int64.self, forKey: .videoSize)
        cloudSize = try fields.decodeIntegerIfPresent(Int64.self, forKey: .cloudSize)
        hasH265 = try fields.decodeIfPresent(Bool.self, forKey: .hasH265)
        createdAt = try fields.decodeDateIfPresent(forKey: .createdAt)
    }

    package func encodeFields(into container: inout KeyedEncodingContainer<PayloadKey>) throws {
        try encodeDeviceFields(into: &container)
        try container.encodeIfPresent(archiveId, forKey: .archiveId)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(videoLength, forKey: .videoLength)
        try container.encodeIfPresent(videoSize, forKey: .videoSize)
        try container.encodeIfPresent(cloudSize, forKey: .cloudSize)
        try container.encodeIfPresent(hasH265, forKey: .hasH265)
        try container.encodeDateIfPresent(createdAt, forKey: .createdAt)
    }
}
