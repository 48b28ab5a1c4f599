/// Legacy-shaped payloads (contract §4), written by hand: the same logical events as the tests' AppSync
/// payloads (contract §3), with no help from the emulator's mapping.
public enum LegacyPayload {
    public static let timestamp = "2026-11-22T10:00:00.000Z"
    public static let device = #""deviceGroupID":"site-1","orgId":"org-1","thingName":"cam-1""#

    public static func presence(online: Bool) -> String { #"{\#(device),"online":\#(online)}"# }
    public static func recording(_ recording: Bool) -> String { #"{\#(device),"recording":\#(recording)}"# }
    public static func firmware(_ state: Int) -> String { #"{\#(device),"fwUpdateState":\#(state)}"# }
    public static func archive(_ id: String, status: String) -> String {
        #"{\#(device),"archiveId":"\#(id)","status":"\#(status)","videoLength":12.5,"videoSize":3000000000,"cloudSize":1000,"hasH265":true,"createdAt":"\#(timestamp)"}"#
    }
    public static func license(_ phase: String) -> String { #"{"orgId":"org-1","licensePhase":"\#(phase)"}"# }
    public static func plan(free: Bool) -> String { #"{"orgId":"org-1","isFreePlan":\#(free)}"# }
    public static func aiSettings(_ uuid: String) -> String {
        #"{"orgId":"org-1","AIControlSetting":{"uuid":"\#(uuid)","termsAgreement":true,"options":[{"key":"person","enabled":true}]}}"#
    }
    public static func role(_ reason: String) -> String { #"{"reason":"\#(reason)"}"# }
    public static func revoke(_ request: String) -> String {
        #"{"userId":"user-1","revokedAt":"\#(timestamp)","reason":"PASSWORD_CHANGED","requestId":"\#(request)"}"#
    }
}
