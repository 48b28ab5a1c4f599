import Foundation

/// One of the notifier's eleven value streams, by the stable name it carries in
/// ``EventMetadata/stream`` (for example `devicePresence` for
/// ``BackendNotifier/devicePresenceValues()``).
public struct NotifierStream: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The stream's stable name, as in ``EventMetadata/stream``.
    public let name: String

    package init(_ id: StreamID) { name = id.rawValue }

    package var id: StreamID { StreamID(rawValue: name) }

    /// ``BackendNotifier/deviceValues()``: device events of every kind.
    public static let device = NotifierStream(StreamCatalog.device)
    /// ``BackendNotifier/devicePresenceValues()``.
    public static let devicePresence = NotifierStream(StreamCatalog.devicePresence)
    /// ``BackendNotifier/deviceRecordingValues()``.
    public static let deviceRecording = NotifierStream(StreamCatalog.deviceRecording)
    /// ``BackendNotifier/deviceFirmwareValues()``.
    public static let deviceFirmware = NotifierStream(StreamCatalog.deviceFirmware)
    /// ``BackendNotifier/archiveValues()``.
    public static let archive = NotifierStream(StreamCatalog.archive)
    /// ``BackendNotifier/organizationValues()``: organization events of every kind.
    public static let organization = NotifierStream(StreamCatalog.organization)
    /// ``BackendNotifier/licenseValues()``.
    public static let license = NotifierStream(StreamCatalog.license)
    /// ``BackendNotifier/planValues()``.
    public static let plan = NotifierStream(StreamCatalog.plan)
    /// ``BackendNotifier/aiSettingsValues()``.
    public static let aiSettings = NotifierStream(StreamCatalog.aiSettings)
    /// ``BackendNotifier/roleValues()``.
    public static let role = NotifierStream(StreamCatalog.role)
    /// ``BackendNotifier/revokeValues()``.
    public static let tokenRevoke = NotifierStream(StreamCatalog.tokenRevoke)

    /// All eleven streams, in catalog order.
    public static let all: [NotifierStream] = StreamCatalog.all.map { NotifierStream($0.id) }

    /// The stream that yields values of `type` (one of the eleven models), nil for any other type.
    package static func yielding(_ type: any SwitchboardEvent.Type) -> NotifierStream? {
        StreamCatalog.descriptor(forType: type).map { NotifierStream($0.id) }
    }

    public var description: String { name }

    public static func < (lhs: NotifierStream, rhs: NotifierStream) -> Bool { lhs.name < rhs.name }
}
