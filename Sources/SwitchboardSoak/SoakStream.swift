import Foundation
import Switchboard
import SwitchboardCore

/// The nine per-channel streams a soak publishes to and consumes, one consumer each.
package enum SoakStream: Int, CaseIterable, Sendable, CustomStringConvertible {
    case devicePresence, deviceRecording, deviceFirmware, archive, license, plan, aiSettings, role, revoke

    package var description: String {
        switch self {
        case .devicePresence: "devicePresence"
        case .deviceRecording: "deviceRecording"
        case .deviceFirmware: "deviceFirmware"
        case .archive: "archive"
        case .license: "license"
        case .plan: "plan"
        case .aiSettings: "aiSettings"
        case .role: "role"
        case .revoke: "revoke"
        }
    }

    /// The channel below `{namespace}/user/{userId}/`.
    var relativeChannel: String {
        switch self {
        case .devicePresence: "device/presenceChanged"
        case .deviceRecording: "device/recordingStateChanged"
        case .deviceFirmware: "device/firmwareUpdated"
        case .archive: "archive/stateChanged"
        case .license: "organization/licensePhaseChanged"
        case .plan: "organization/planChanged"
        case .aiSettings: "organization/aiSettingsChanged"
        case .role: "roleChanged"
        case .revoke: "tokenRevoked"
        }
    }

    /// The payload's `eventType`.
    var eventType: String {
        switch self {
        case .role: "user/roleChanged"
        case .revoke: "user/tokenRevoked"
        default: relativeChannel
        }
    }

    /// How a consumer of this stream tells one event from another over `transport`.
    ///
    /// Every stream but two carries a free text field (a thing name, an archive id, a uuid, a
    /// reason, a request id) that both transports deliver, so each event has its own tag. The
    /// license and plan events carry only an enumeration and a flag besides the organization,
    /// and the legacy GraphQL shape drops the `timestamp`: over GraphQL they are counted per
    /// value (a loss and a duplicate of the same value cancel out there; see ``SoakLedger``).
    func identity(over transport: SoakTransport) -> SoakLedger.Identity {
        switch self {
        case .license where transport.isLegacy: .classes(SoakWorkload.licensePhases.count)
        case .plan where transport.isLegacy: .classes(2)
        default: .unique
        }
    }
}

/// The events a soak publishes: event `index` goes to stream `index % 9` and is that stream's
/// round `index / 9`, tagged `soak-<round>` and stamped `base + index` milliseconds.
package struct SoakWorkload: Sendable {
    package var namespace = "vortex-app"
    package var userId = "soak-user"
    package var orgId = "soak-org"
    /// The timestamp of event 0; whole seconds, so every stamp is a whole millisecond.
    package var base: Date

    static let licensePhases = ["Valid", "NoticePeriod", "GracePeriod", "RenewalOverdue"]

    package init(base: Date = Date()) {
        self.base = Date(timeIntervalSince1970: base.timeIntervalSince1970.rounded(.down))
    }

    /// One event to publish.
    package struct Event: Sendable {
        package var stream: SoakStream
        /// The stream's round: the event's slot in ``SoakLedger`` when events are unique.
        package var round: Int
        package var channel: String
        package var payload: String
    }

    package func event(_ index: Int) -> Event {
        let stream = SoakStream(rawValue: index % SoakStream.allCases.count)!
        let round = index / SoakStream.allCases.count
        let tag = "soak-\(round)"
        let timestamp = ISO8601Timestamp.string(from: base.addingTimeInterval(Double(index) / 1000)) ?? "2026-01-01T00:00:00.000Z"
        let device = #""orgId":"\#(orgId)","siteId":"site-1","thingName":"\#(tag)""#
        let fields =
            switch stream {
            case .devicePresence: #"\#(device),"online":\#(round.isMultiple(of: 2))"#
            case .deviceRecording: #"\#(device),"recording":\#(round.isMultiple(of: 2))"#
            case .deviceFirmware: #"\#(device),"fwUpdateState":\#(round % 15)"#
            case .archive:
                #"\#(device),"archiveId":"\#(tag)","status":"Ready","videoLength":12.5,"videoSize":\#(round),"cloudSize":1000,"hasH265":true,"createdAt":"\#(timestamp)""#
            case .license: #""orgId":"\#(orgId)","licensePhase":"\#(Self.licensePhases[round % Self.licensePhases.count])""#
            case .plan: #""orgId":"\#(orgId)","isFreePlan":\#(round.isMultiple(of: 2))"#
            case .aiSettings:
                #""orgId":"\#(orgId)","aiControlSetting":{"uuid":"\#(tag)","termsAgreement":true,"options":[{"key":"person","enabled":true}]}"#
            case .role: #""reason":"\#(tag)""#
            case .revoke: #""userId":"\#(userId)","revokedAt":"\#(timestamp)","reason":"PASSWORD_CHANGED","requestId":"\#(tag)""#
            }
        return Event(
            stream: stream, round: round, channel: "\(namespace)/user/\(userId)/\(stream.relativeChannel)",
            payload: #"{"eventType":"\#(stream.eventType)","timestamp":"\#(timestamp)",\#(fields)}"#)
    }

    /// The slot a published event takes in the ledger under `identity`.
    package func slot(of event: Event, identity: SoakLedger.Identity) -> Int {
        guard case .classes(let count) = identity else { return event.round }
        return event.stream == .license ? event.round % Self.licensePhases.count : event.round % count
    }

    // MARK: Recognising delivered values

    /// The round in a `soak-<round>` tag.
    static func round(tag: String?) -> Int? {
        guard let tag, tag.hasPrefix("soak-") else { return nil }
        return Int(tag.dropFirst(5))
    }

    /// The round of the event stamped `timestamp` on `stream`.
    func round(timestamp: Date?, stream: SoakStream) -> Int? {
        guard let timestamp else { return nil }
        let index = Int((timestamp.timeIntervalSince(base) * 1000).rounded())
        guard index >= 0, index % SoakStream.allCases.count == stream.rawValue else { return nil }
        return index / SoakStream.allCases.count
    }

    func slot(license value: LicenseStateOutput, identity: SoakLedger.Identity) -> Int? {
        guard case .classes = identity else { return round(timestamp: value.timestamp, stream: .license) }
        return value.licensePhase.flatMap { Self.licensePhases.firstIndex(of: $0.rawValue) }
    }

    func slot(plan value: PlanStateOutput, identity: SoakLedger.Identity) -> Int? {
        guard case .classes = identity else { return round(timestamp: value.timestamp, stream: .plan) }
        return value.isFreePlan.map { $0 ? 0 : 1 }
    }
}
