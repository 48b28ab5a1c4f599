import SwitchboardCore

/// Every consumer stream, declared once: its channel and event types (contract.md §3) and its
/// typed model. How a transport covers a stream (an AppSync channel, a legacy GraphQL root field)
/// is the transport's own business (``EventTransport/plan(streams:identity:namespace:)``), read
/// from the stream's ``StreamDescriptor/address``. Adding a stream is one entry here plus its
/// ``BackendNotifier`` method.
package enum StreamCatalog {
    package static let device: StreamID = "device"
    package static let devicePresence: StreamID = "devicePresence"
    package static let deviceRecording: StreamID = "deviceRecording"
    package static let deviceFirmware: StreamID = "deviceFirmware"
    package static let archive: StreamID = "archive"
    package static let organization: StreamID = "organization"
    package static let license: StreamID = "license"
    package static let plan: StreamID = "plan"
    package static let aiSettings: StreamID = "aiSettings"
    package static let role: StreamID = "role"
    package static let tokenRevoke: StreamID = "tokenRevoke"

    package static let all: [StreamDescriptor] = [
        StreamDescriptor(
            id: device, family: "device", channel: "device/*",
            eventTypes: ["device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated"], outputType: DeviceStateOutput.self),
        StreamDescriptor(
            id: devicePresence, family: "device", channel: "device/presenceChanged",
            eventTypes: ["device/presenceChanged"],
            outputType: DevicePresenceOutput.self),
        StreamDescriptor(
            id: deviceRecording, family: "device", channel: "device/recordingStateChanged",
            eventTypes: ["device/recordingStateChanged"],
            outputType: DeviceRecordingOutput.self),
        StreamDescriptor(
            id: deviceFirmware, family: "device", channel: "device/firmwareUpdated",
            eventTypes: ["device/firmwareUpdated"],
            outputType: DeviceFirmwareOutput.self),
        StreamDescriptor(
            id: archive, family: nil, channel: "archive/stateChanged",
            eventTypes: ["archive/stateChanged"], outputType: ArchiveStateOutput.self),
        StreamDescriptor(
            id: organization, family: "organization", channel: "organization/*",
            eventTypes: ["organization/licensePhaseChanged", "organization/planChanged", "organization/aiSettingsChanged"], outputType: OrganizationStateOutput.self),
        StreamDescriptor(
            id: license, family: "organization", channel: "organization/licensePhaseChanged",
            eventTypes: ["organization/licensePhaseChanged"],
            outputType: LicenseStateOutput.self),
        StreamDescriptor(
            id: plan, family: "organization", channel: "organization/planChanged",
            eventTypes: ["organization/planChanged"],
            outputType: PlanStateOutput.self),
        StreamDescriptor(
            id: aiSettings, family: "organization", channel: "organization/aiSettingsChanged",
            eventTypes: ["organization/aiSettingsChanged"],
            outputType: AISettingsOutput.self),
        StreamDescriptor(
            id: role, family: nil, channel: "roleChanged",
            eventTypes: ["user/roleChanged"], outputType: RoleChangeOutput.self),
        StreamDescriptor(
            id: tokenRevoke, family: nil, channel: "tokenRevoked",
            eventTypes: ["user/tokenRevoked"], outputType: UserTokenRevokeOutput.self),
    ]

    private static let byID: [StreamID: StreamDescriptor] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    private static let byType: [ObjectIdentifier: StreamDescriptor] = Dictionary(
        uniqueKeysWithValues: all.map { (ObjectIdentifier($0.outputType), $0) })

    /// The descriptor of a stream.
    package static func descriptor(_ id: StreamID) -> StreamDescriptor {
        guard let descriptor = byID[id] else { preconditionFailure("stream \(id) is not in the catalog") }
        return descriptor
    }

    /// The descriptor of the stream that yields `type`.
    package static func descriptor<Output: CatalogEvent>(for type: Output.Type) -> StreamDescriptor {
        guard let descriptor = byType[ObjectIdentifier(type)] else {
            preconditionFailure("\(type) has no stream in the catalog")
        }
        return descriptor
    }

    /// The descriptor of the stream that yields `type`, nil for a type that no stream yields.
    package static func descriptor(forType type: any SwitchboardEvent.Type) -> StreamDescriptor? {
        byType[ObjectIdentifier(type)]
    }

    /// The channel of a stream (or of a family wildcard) for one user.
    package static func channel(_ relative: String, namespace: String, userId: String) -> String {
        StreamAddress.channelPath(relative, namespace: namespace, userId: userId)
    }
}
