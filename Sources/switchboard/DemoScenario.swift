import Foundation
import Switchboard
import SwitchboardCore

/// The events `switchboard demo` publishes: the nine event types of the new contract in turn,
/// for one demo user, as the backend would publish them on AppSync Events.
struct DemoScenario: Sendable {
    /// One event to publish.
    struct Event: Sendable, Equatable {
        /// The stream that must receive it.
        var stream: StreamName
        /// The full channel, `{namespace}/user/{userId}/…`.
        var channel: String
        /// The payload JSON text.
        var payload: String
    }

    var namespace: String
    var userId: String
    var orgId: String

    /// The `index`-th event: the nine types repeat in a fixed order, with values that vary
    /// with `index` so consecutive events differ.
    func event(_ index: Int, at date: Date) -> Event {
        let stream = StreamName.perChannel[index % StreamName.perChannel.count]
        let round = index / StreamName.perChannel.count
        let timestamp = ISO8601Timestamp.string(from: date) ?? "1970-01-01T00:00:00.000Z"
        let device = #""orgId":"\#(orgId)","siteId":"site-1","thingName":"camera-\#(round % 3 + 1)""#
        let (relative, eventType, fields): (String, String, String) =
            switch stream {
            case .devicePresence:
                ("device/presenceChanged", "device/presenceChanged", #"\#(device),"online":\#(round.isMultiple(of: 2))"#)
            case .deviceRecording:
                ("device/recordingStateChanged", "device/recordingStateChanged", #"\#(device),"recording":\#(!round.isMultiple(of: 2))"#)
            case .deviceFirmware:
                ("device/firmwareUpdated", "device/firmwareUpdated", #"\#(device),"fwUpdateState":\#(round % 15)"#)
            case .archive:
                ("archive/stateChanged", "archive/stateChanged",
                 #"\#(device),"archiveId":"archive-\#(round)","status":"\#(Self.archiveStatuses[round % Self.archiveStatuses.count])","videoLength":\#(30 + round),"videoSize":\#(3_000_000_000 + round),"cloudSize":\#(1_500_000 + round),"hasH265":true,"createdAt":"\#(timestamp)""#)
            case .license:
                ("organization/licensePhaseChanged", "organization/licensePhaseChanged",
                 #""orgId":"\#(orgId)","licensePhase":"\#(Self.licensePhases[round % Self.licensePhases.count])""#)
            case .plan:
                ("organization/planChanged", "organization/planChanged", #""orgId":"\#(orgId)","isFreePlan":\#(round.isMultiple(of: 2))"#)
            case .aiSettings:
                ("organization/aiSettingsChanged", "organization/aiSettingsChanged",
                 #""orgId":"\#(orgId)","aiControlSetting":{"uuid":"ai-\#(round)","termsAgreement":true,"options":[{"key":"personDetection","enabled":\#(round.isMultiple(of: 2))}]}"#)
            case .role:
                ("roleChanged", "user/roleChanged", #""reason":"demo role change \#(round)""#)
            case .revoke:
                ("tokenRevoked", "user/tokenRevoked",
                 #""userId":"\#(userId)","revokedAt":"\#(timestamp)","reason":"PASSWORD_CHANGED","requestId":"request-\#(round)""#)
            case .device, .organization:
                preconditionFailure("the demo publishes per-channel events only")
            }
        return Event(
            stream: stream,
            channel: "\(namespace)/user/\(userId)/\(relative)",
            payload: #"{"eventType":"\#(eventType)","timestamp":"\#(timestamp)",\#(fields)}"#)
    }

    private static let archiveStatuses = ["Pending", "Uploading", "Processing", "Ready"]
    private static let licensePhases = ["Valid", "NoticePeriod", "GracePeriod", "RenewalOverdue"]
}
