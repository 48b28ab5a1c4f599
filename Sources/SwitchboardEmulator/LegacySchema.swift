/// The legacy GraphQL schema of contract §4, as the emulator validates documents against it.
enum LegacySchema {
    /// A selectable field: a leaf, or an object with its own fields.
    indirect enum FieldType: Sendable {
        case leaf
        case object([String: FieldType])
    }

    static let deviceState: [String: FieldType] = fields(
        "deviceGroupID", "orgId", "thingName", "derivant", "mac", "online", "recording", "fwUpdateState")
    static let archiveState: [String: FieldType] = fields(
        "deviceGroupID", "orgId", "thingName", "derivant", "mac", "archiveId", "status", "videoLength",
        "videoSize", "cloudSize", "hasH265", "createdAt")
    static let organizationState: [String: FieldType] = {
        var result = fields("orgId", "licensePhase", "isFreePlan")
        var setting = fields("uuid", "termsAgreement")
        setting["options"] = .object(fields("key", "enabled"))
        result["AIControlSetting"] = .object(setting)
        return result
    }()

    /// Each subscription field: its one required argument and its result type's fields.
    static let subscriptions: [String: (argument: String, fields: [String: FieldType])] = [
        "subscribeDeviceState": ("userId", deviceState),
        "subscribeOrganizationState": ("orgId", organizationState),
        "subscribeArchiveState": ("userId", archiveState),
        "subscribeRoleChange": ("userId", fields("reason")),
        "subscribeUserTokenRevoke": ("userId", fields("userId", "revokedAt", "reason", "requestId")),
    ]

    private static func fields(_ names: String...) -> [String: FieldType] {
        Dictionary(uniqueKeysWithValues: names.map { ($0, FieldType.leaf) })
    }
}
