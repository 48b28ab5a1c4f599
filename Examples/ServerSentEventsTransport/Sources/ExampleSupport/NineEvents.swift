import Foundation
import Switchboard
import SwitchboardCore

/// One event of each of the contract's nine types (contract.md §3), as the backend publishes them
/// for one user, and what a consumer of the unchanged `BackendNotifier` API receives for them.
public struct NineEvents: Sendable {
    /// The user the events are for.
    public let userId: String
    /// The user's organization.
    public let orgId: String

    public init(userId: String, orgId: String) {
        self.userId = userId
        self.orgId = orgId
    }

    /// `(channel below the user's, event JSON)`, in publishing order.
    public var published: [(channel: String, event: String)] {
        let stamp = #""timestamp":"2026-11-27T10:00:00.000Z""#
        let device = #""orgId":"\#(orgId)","siteId":"site-1","thingName":"camera-1""#
        return [
            ("device/presenceChanged", #"{"eventType":"device/presenceChanged",\#(stamp),\#(device),"online":true}"#),
            ("device/recordingStateChanged", #"{"eventType":"device/recordingStateChanged",\#(stamp),\#(device),"recording":true}"#),
            ("device/firmwareUpdated", #"{"eventType":"device/firmwareUpdated",\#(stamp),\#(device),"fwUpdateState":7}"#),
            ("archive/stateChanged",
             #"{"eventType":"archive/stateChanged",\#(stamp),\#(device),"archiveId":"archive-1","status":"Ready","videoLength":42.5,"videoSize":3000000000,"cloudSize":1500000,"hasH265":true,"createdAt":"2026-11-27T09:59:00.000Z"}"#),
            ("organization/licensePhaseChanged", #"{"eventType":"organization/licensePhaseChanged",\#(stamp),"orgId":"\#(orgId)","licensePhase":"GracePeriod"}"#),
            ("organization/planChanged", #"{"eventType":"organization/planChanged",\#(stamp),"orgId":"\#(orgId)","isFreePlan":false}"#),
            ("organization/aiSettingsChanged",
             #"{"eventType":"organization/aiSettingsChanged",\#(stamp),"orgId":"\#(orgId)","aiControlSetting":{"uuid":"ai-1","termsAgreement":true,"options":[{"key":"personDetection","enabled":true}]}}"#),
            ("roleChanged", #"{"eventType":"user/roleChanged",\#(stamp),"reason":"promoted to admin"}"#),
            ("tokenRevoked",
             #"{"eventType":"user/tokenRevoked",\#(stamp),"userId":"\#(userId)","revokedAt":"2026-11-27T10:00:00.000Z","reason":"PASSWORD_CHANGED","requestId":"request-1"}"#),
        ]
    }

    /// What the nine per-channel streams yielded first.
    public struct Received: Sendable {
        public var presence: DevicePresenceOutput
        public var recording: DeviceRecordingOutput
        public var firmware: DeviceFirmwareOutput
        public var archive: ArchiveStateOutput
        public var license: LicenseStateOutput
        public var plan: PlanStateOutput
        public var aiSettings: AISettingsOutput
        public var role: RoleChangeOutput
        public var revoke: UserTokenRevokeOutput
    }

    /// Runs `notifier` against `emulator`: signs `userId` in through `session`, asks for the nine
    /// per-channel streams, waits until the emulator holds their subscriptions, publishes the nine
    /// events as the backend would, and returns the first value of each stream once the notifier
    /// has shut down again.
    public func run(_ notifier: BackendNotifier, session: SessionSource, emulator: EmulatorChild) async throws -> Received {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            let userId = self.userId
            session.update(.signedIn(userId: userId, orgId: orgId) { _ in EmulatorChild.token(for: userId) })
            let received = try await receive(through: notifier, emulator: emulator)
            await notifier.shutDown()
            try await group.waitForAll()
            return received
        }
    }

    private func receive(through notifier: BackendNotifier, emulator: EmulatorChild) async throws -> Received {
        var presence = await notifier.devicePresenceValues().makeAsyncIterator()
        var recording = await notifier.deviceRecordingValues().makeAsyncIterator()
        var firmware = await notifier.deviceFirmwareValues().makeAsyncIterator()
        var archive = await notifier.archiveValues().makeAsyncIterator()
        var license = await notifier.licenseValues().makeAsyncIterator()
        var plan = await notifier.planValues().makeAsyncIterator()
        var aiSettings = await notifier.aiSettingsValues().makeAsyncIterator()
        var role = await notifier.roleValues().makeAsyncIterator()
        var revoke = await notifier.revokeValues().makeAsyncIterator()
        try await emulator.waitForSubscriptions(published.count)
        for (channel, event) in published {
            try await emulator.publish(event, on: "vortex-app/user/\(userId)/\(channel)")
        }
        func next<Value>(_ iterator: inout AsyncStream<Value>.Iterator, _ name: String) async throws -> Value {
            guard let value = await iterator.next() else { throw StreamEnded(stream: name) }
            return value
        }
        let received = Received(
            presence: try await next(&presence, "devicePresenceValues"),
            recording: try await next(&recording, "deviceRecordingValues"),
            firmware: try await next(&firmware, "deviceFirmwareValues"),
            archive: try await next(&archive, "archiveValues"),
            license: try await next(&license, "licenseValues"),
            plan: try await next(&plan, "planValues"),
            aiSettings: try await next(&aiSettings, "aiSettingsValues"),
            role: try await next(&role, "roleValues"),
            revoke: try await next(&revoke, "revokeValues"))
        return received
    }

    /// A stream ended before it yielded its event (the notifier shut down).
    public struct StreamEnded: Error, CustomStringConvertible {
        public var stream: String
        public var description: String { "\(stream) ended before its event arrived" }
    }
}
