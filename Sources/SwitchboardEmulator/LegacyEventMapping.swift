import SwitchboardCore

/// Maps an AppSync Events publish onto the legacy subscription it feeds, in the legacy shape
/// (contract §4: `siteId` → `deviceGroupID`, `aiControlSetting` → `AIControlSetting`, no
/// `eventType`/`timestamp`). Pure.
enum LegacyEventMapping {
    /// The legacy payload for `subscription` if the event on `channel` feeds it, else nil.
    static func payload(for subscription: LegacySubscription, channel: ChannelPath, event: String) -> [String: Any]? {
        let segments = channel.segments
        guard segments.count >= 4, segments[1] == "user", var object = JSONText.decodeObject(event) else { return nil }
        let userId = segments[2]
        let kind = segments[3...].joined(separator: "/")
        object["eventType"] = nil
        object["timestamp"] = nil
        if let siteId = object.removeValue(forKey: "siteId") { object["deviceGroupID"] = siteId }
        if let setting = object.removeValue(forKey: "aiControlSetting") { object["AIControlSetting"] = setting }
        switch subscription.field {
        case "subscribeDeviceState":
            let kinds: Set = ["device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated"]
            return kinds.contains(kind) && userId == subscription.argument ? object : nil
        case "subscribeArchiveState":
            return kind == "archive/stateChanged" && userId == subscription.argument ? object : nil
        case "subscribeOrganizationState":
            let kinds: Set = ["organization/licensePhaseChanged", "organization/planChanged", "organization/aiSettingsChanged"]
            return kinds.contains(kind) && object["orgId"] as? String == subscription.argument ? object : nil
        case "subscribeRoleChange":
            return kind == "roleChanged" && userId == subscription.argument ? object : nil
        case "subscribeUserTokenRevoke":
            return kind == "tokenRevoked" && userId == subscription.argument ? object : nil
        default:
            return nil
        }
    }

    /// The result for `payload`, completed as a GraphQL executor completes it (``ResultCompletion``):
    /// `data` is `{"<alias or field>": <selected fields>}`; `errors` (empty when none) holds the
    /// field errors, such as an enum value the schema does not have, whose fields are null.
    static func result(for subscription: LegacySubscription, payload: [String: Any]) -> (data: [String: Any], errors: [[String: Any]]) {
        var completion = ResultCompletion()
        let data = completion.data(for: subscription, payload: payload)
        return (data, completion.errors)
    }
}
